package boundaries;

/** Mentions the forbidden package only in a string constant, which does not count. */
public class Clean {
    /** Text, not a reference. */
    public static final String TEXT = "java/util/zip/CRC32 and Ljava/util/zip/Adler32;";
}
