package dev.rowqueue.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Where {@code work enqueue} and {@code ring push} take payloads from: the command line, standard input ({@code -}
 * alone) or a file ({@code --file PATH}). Input and files are read as UTF-8, exactly as they are (a trailing new line
 * stays part of the payload), so payloads are not limited by the shell's argument length.
 */
final class Payloads {

    private Payloads() {
    }

    /**
     * @param given payloads given on the command line
     * @param file  {@code --file}, or {@code null}
     * @param env   for standard input
     * @return the payloads
     * @throws IllegalArgumentException for no payload, or a file or '-' together with other payloads
     */
    static List<String> read(List<String> given, Path file, CliEnv env) {
        if (file != null) {
            if (!given.isEmpty()) {
                throw new IllegalArgumentException("give payloads either on the command line or with --file, not both");
            }
            try {
                return List.of(Files.readString(file, StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new CliException(ExitCode.USAGE, "cannot read --file " + file + ": " + e, e);
            }
        }
        if (given.contains("-")) {
            if (given.size() != 1) {
                throw new IllegalArgumentException("'-' reads one payload from standard input: give no other payload");
            }
            try (InputStream in = env.stdin()) {
                return List.of(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new CliException(ExitCode.USAGE, "cannot read standard input: " + e, e);
            }
        }
        if (given.isEmpty()) {
            throw new IllegalArgumentException("give one or more payloads, '-' for standard input, or --file PATH");
        }
        return given;
    }
}
