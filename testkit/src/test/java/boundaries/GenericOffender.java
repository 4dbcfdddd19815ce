package boundaries;

import java.util.List;
import java.util.zip.Adler32;

/** Names java.util.zip only in a generic signature, which the constant pool keeps. */
public class GenericOffender {
    /** A list whose element type is in the forbidden package. */
    public List<Adler32> checksums = List.of();
}
