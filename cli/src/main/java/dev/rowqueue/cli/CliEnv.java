package dev.rowqueue.cli;

import java.io.Console;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.Objects;

/**
 * What the command line reads from its surroundings: environment variables, whether a person sits at a terminal,
 * and a way to ask that person for a password. Tests give a fake one.
 */
public interface CliEnv {

    /**
     * @param name an environment variable
     * @return its value, or {@code null}
     */
    String getenv(String name);

    /** @return whether standard input and output are an interactive terminal */
    boolean interactive();

    /**
     * Asks for a password without echoing it.
     *
     * @param prompt the question
     * @return the answer, or {@code null} if there is no terminal to ask on
     */
    char[] readPassword(String prompt);

    /**
     * Standard input, for payloads read with {@code -}. Closing it is harmless.
     *
     * @return standard input
     */
    default java.io.InputStream stdin() {
        return new java.io.FilterInputStream(System.in) {
            @Override
            public void close() {
                // System.in stays open
            }
        };
    }

    /** @return the process's real environment and console */
    static CliEnv system() {
        return new CliEnv() {
            @Override
            public String getenv(String name) {
                return System.getenv(name);
            }

            @Override
            public boolean interactive() {
                return isTerminal(System.console());
            }

            @Override
            public char[] readPassword(String prompt) {
                Console console = System.console();
                return isTerminal(console) ? console.readPassword("%s", prompt) : null;
            }
        };
    }

    /**
     * @param env         the environment variables
     * @param interactive whether to behave as if on a terminal
     * @param password    what a password prompt answers, or {@code null} for no terminal
     * @return a fixed environment, for tests
     */
    static CliEnv of(Map<String, String> env, boolean interactive, String password) {
        return of(env, interactive, password, "");
    }

    /**
     * @param env         the environment variables
     * @param interactive whether to behave as if on a terminal
     * @param password    what a password prompt answers, or {@code null} for no terminal
     * @param stdin       what standard input holds
     * @return a fixed environment, for tests
     */
    static CliEnv of(Map<String, String> env, boolean interactive, String password, String stdin) {
        Map<String, String> copy = Map.copyOf(env);
        byte[] input = stdin.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        return new CliEnv() {
            @Override
            public String getenv(String name) {
                return copy.get(name);
            }

            @Override
            public boolean interactive() {
                return interactive;
            }

            @Override
            public char[] readPassword(String prompt) {
                return password == null ? null : password.toCharArray();
            }

            @Override
            public java.io.InputStream stdin() {
                return new java.io.ByteArrayInputStream(input);
            }
        };
    }

    /**
     * Java 17 returns no console unless both standard streams are a terminal; Java 22 and later always return one and
     * tell with {@code Console.isTerminal()}, called here by reflection so the code still compiles for Java 17.
     *
     * @param console {@code System.console()}
     * @return whether it is an interactive terminal
     */
    static boolean isTerminal(Console console) {
        if (console == null) {
            return false;
        }
        try {
            Method m = Console.class.getMethod("isTerminal");
            return Objects.equals(m.invoke(console), Boolean.TRUE);
        } catch (NoSuchMethodException e) {
            return true;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return false;
        }
    }
}
