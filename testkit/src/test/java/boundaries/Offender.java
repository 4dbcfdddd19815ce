package boundaries;

import java.util.zip.CRC32;

/** Uses java.util.zip in a field's type: what BoundariesTest forbids. */
public class Offender {
    /** A field whose type is in the forbidden package. */
    public CRC32 checksum = new CRC32();
}
