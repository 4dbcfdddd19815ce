package dev.rowqueue.console;

import dev.rowqueue.QueueInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The audit log, {@code dev.rowqueue.console.audit}: every change at INFO (what, on which queue, by which
 * credential's identifier, from where), every sign-in and sign-out at INFO, every refused sign-in or change at WARN.
 * Credentials appear as identifiers only ({@link Operator#id()}), never as secrets. Text from outside (user names)
 * has its control characters replaced, so that no line can be forged.
 */
final class Audit {
    private static final Logger log = LoggerFactory.getLogger("dev.rowqueue.console.audit");

    void change(Console.Call call, String what, QueueInfo queue) {
        log.info("rowqueue console: {} of work queue {}; by {} from {}", what, queue.name(), clean(call.operator().id()),
                clean(call.request().remoteAddress()));
    }

    void scheduleChange(Console.Call call, String what) {
        log.info("rowqueue console: {}; by {} from {}", what, clean(call.operator().id()),
                clean(call.request().remoteAddress()));
    }

    void refused(Operator operator, ConsoleRequest request, String why) {
        log.warn("rowqueue console: refused {} {} by {} from {}: {}", request.method(), clean(request.path()),
                clean(operator.id()), clean(request.remoteAddress()), clean(why));
    }

    void signedIn(Operator operator, ConsoleRequest request) {
        log.info("rowqueue console: signed in, {} from {}", clean(operator.id()), clean(request.remoteAddress()));
    }

    void signedOut(Operator operator, ConsoleRequest request) {
        log.info("rowqueue console: signed out, {} from {}", clean(operator.id()), clean(request.remoteAddress()));
    }

    void refusedSignIn(ConsoleRequest request, String why) {
        log.warn("rowqueue console: refused a sign-in from {}: {}", clean(request.remoteAddress()), clean(why));
    }

    static String clean(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder b = new StringBuilder(s.length());
        s.codePoints().forEach(c -> b.appendCodePoint(Character.isISOControl(c) ? '?' : c));
        return b.toString();
    }
}
