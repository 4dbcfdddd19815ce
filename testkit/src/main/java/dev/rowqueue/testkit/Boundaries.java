package dev.rowqueue.testkit;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The module boundaries the build enforces, checked on compiled classes: a module's main code uses no class of a
 * forbidden package (the classes its constant pool names, in class references, descriptors and generic signatures;
 * string constants do not count). The parent pom runs it on every module's {@code target/classes} after the compiler,
 * as a single-file program, so a module that crosses a boundary fails its own build:
 *
 * <pre>{@code java Boundaries.java <classes directory> <rule>...}</pre>
 *
 * <p>A rule is a package, e.g. {@code dev.rowqueue.internal} (which only rowqueue-api may use), optionally followed by
 * {@code !} and the one class, with its nested classes, that may use it:
 * {@code dev.rowqueue.tck!dev.rowqueue.cli.TckCommand}.
 */
public final class Boundaries {
    private static final Pattern DESCRIPTOR_TYPE = Pattern.compile("L([^;<>:.\\[]+)[;<]");

    private Boundaries() {
    }

    /**
     * Checks a classes directory and exits with status 1, naming every violation, if it crosses a boundary.
     *
     * @param args the classes directory (nothing to check if it does not exist), then the rules (blank ones ignored,
     *             several may share one argument separated by white space)
     * @throws IOException if a class file cannot be read
     */
    public static void main(String[] args) throws IOException {
        if (args.length < 1) {
            System.err.println("usage: java Boundaries.java <classes directory> <package>[!<allowed class>]...");
            System.exit(2);
        }
        List<String> rules = new ArrayList<>();
        for (String arg : Arrays.asList(args).subList(1, args.length)) {
            for (String rule : arg.trim().split("\\s+")) {
                if (!rule.isEmpty()) {
                    rules.add(rule);
                }
            }
        }
        List<String> violations = check(Path.of(args[0]), rules);
        if (!violations.isEmpty()) {
            System.err.println("module boundaries crossed in " + args[0] + ":");
            violations.forEach(v -> System.err.println("  " + v));
            System.exit(1);
        }
    }

    /**
     * @param classes a directory of compiled classes
     * @param rules   rules as {@link Boundaries} describes them
     * @return one line per class that uses a forbidden package ("a.B uses c.D, c.E"), sorted; empty if none
     * @throws IOException if a class file cannot be read
     */
    public static List<String> check(Path classes, List<String> rules) throws IOException {
        List<String> violations = new ArrayList<>();
        if (!Files.isDirectory(classes)) {
            return violations;
        }
        List<Path> files;
        try (Stream<Path> walk = Files.walk(classes)) {
            files = walk.filter(p -> p.toString().endsWith(".class")).sorted().toList();
        }
        for (Path file : files) {
            String name = classes.relativize(file).toString().replace('\\', '/');
            name = name.substring(0, name.length() - ".class".length()).replace('/', '.');
            if (name.endsWith("module-info") || name.endsWith("package-info")) {
                continue;
            }
            Set<String> used;
            try (InputStream in = Files.newInputStream(file)) {
                used = referencedClasses(in);
            }
            Set<String> forbidden = new TreeSet<>();
            for (String rule : rules) {
                int bang = rule.indexOf('!');
                String pkg = (bang < 0 ? rule : rule.substring(0, bang)) + ".";
                String allowed = bang < 0 ? null : rule.substring(bang + 1);
                if (allowed != null && (name.equals(allowed) || name.startsWith(allowed + "$"))) {
                    continue;
                }
                for (String u : used) {
                    if (u.startsWith(pkg)) {
                        forbidden.add(u);
                    }
                }
            }
            if (!forbidden.isEmpty()) {
                violations.add(name + " uses " + String.join(", ", forbidden));
            }
        }
        return violations;
    }

    /**
     * @param classFile a class file
     * @return the binary names (with dots) of the classes its constant pool names: class entries, and the types in
     *         field and method descriptors and generic signatures; not string constants
     * @throws IOException if it is not a class file
     */
    public static Set<String> referencedClasses(InputStream classFile) throws IOException {
        DataInputStream in = new DataInputStream(classFile);
        if (in.readInt() != 0xCAFEBABE) {
            throw new IOException("not a class file");
        }
        in.readUnsignedShort(); // minor version
        in.readUnsignedShort(); // major version
        int count = in.readUnsignedShort();
        String[] utf8 = new String[count];
        List<Integer> classNames = new ArrayList<>();
        Set<Integer> strings = new HashSet<>();
        for (int i = 1; i < count; i++) {
            int tag = in.readUnsignedByte();
            switch (tag) {
                case 1 -> utf8[i] = in.readUTF();
                case 7 -> classNames.add(in.readUnsignedShort());
                case 8 -> strings.add(in.readUnsignedShort());
                // method type (its descriptor is a utf8 entry), module, package
                case 16, 19, 20 -> in.readUnsignedShort();
                case 15 -> in.skipNBytes(3); // method handle
                case 3, 4, 9, 10, 11, 12, 17, 18 -> in.readInt(); // int, float, member refs, name and type, dynamic
                case 5, 6 -> {
                    in.readLong(); // long and double take two entries
                    i++;
                }
                default -> throw new IOException("unknown constant pool tag " + tag + " at entry " + i);
            }
        }
        Set<String> names = new TreeSet<>();
        for (int index : classNames) {
            String name = utf8[index];
            if (name.startsWith("[")) {
                addDescriptorTypes(name, names);
            } else {
                names.add(name.replace('/', '.'));
            }
        }
        for (int i = 1; i < count; i++) {
            if (utf8[i] != null && !strings.contains(i)) {
                addDescriptorTypes(utf8[i], names);
            }
        }
        return names;
    }

    private static void addDescriptorTypes(String text, Set<String> names) {
        Matcher m = DESCRIPTOR_TYPE.matcher(text);
        while (m.find()) {
            names.add(m.group(1).replace('/', '.'));
        }
    }
}
