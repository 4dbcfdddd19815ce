package dev.rowqueue.console;

import dev.rowqueue.console.Console.Call;

/**
 * The sign-in form, its check, and sign-out, for a console with its own token. A good token starts a session: its id
 * goes into an HttpOnly, SameSite=Strict cookie scoped to the console's path (the token never goes into a cookie).
 */
final class SignIn {
    private final Console console;
    private final TokenAuth auth;

    SignIn(Console console) {
        this.console = console;
        this.auth = console.tokenAuth();
    }

    ConsoleResponse handle(ConsoleRequest request) {
        String next = safeNext(request.method().equals("POST") ? request.form("next") : request.query("next"));
        switch (request.method()) {
            case "GET", "HEAD" -> {
                if (auth.session(request.cookie(TokenAuth.COOKIE)) != null) {
                    return ConsoleResponse.seeOther(request.mount() + next);
                }
                return Pages.signIn(request, 200, next, null);
            }
            case "POST" -> {
                String cross = Console.crossOrigin(request);
                if (cross != null) {
                    console.audit().refusedSignIn(request, cross);
                    return Pages.signIn(request, 403, next, cross);
                }
                if (!auth.mayTry(request.remoteAddress())) {
                    console.audit().refusedSignIn(request, "too many failed sign-ins from there in the last minute");
                    return Pages.signIn(request, 429, next, "Too many failed sign-ins in the last minute. Wait a"
                            + " minute and try again.").header("Retry-After", "60");
                }
                if (!auth.isToken(request.form("token"))) {
                    auth.failed(request.remoteAddress());
                    console.audit().refusedSignIn(request, "wrong token");
                    return Pages.signIn(request, 401, next, "That is not the console's token.");
                }
                TokenAuth.SignIn s = auth.signIn();
                console.audit().signedIn(s.operator(), request);
                return ConsoleResponse.seeOther(request.mount() + next)
                        .header("Set-Cookie", cookie(request, s.cookieValue(), false));
            }
            default -> {
                return ConsoleResponse.text(405, "Method not allowed\n").header("Allow", "GET, POST");
            }
        }
    }

    ConsoleResponse signOut(Call call) {
        auth.signOut(call.request().cookie(TokenAuth.COOKIE));
        console.audit().signedOut(call.operator(), call.request());
        return ConsoleResponse.seeOther(call.request().mount() + "/sign-in")
                .header("Set-Cookie", cookie(call.request(), "", true));
    }

    private static String cookie(ConsoleRequest request, String value, boolean expire) {
        return TokenAuth.COOKIE + "=" + value + "; Path=" + request.mount() + "/; HttpOnly; SameSite=Strict"
                + (request.secure() ? "; Secure" : "") + (expire ? "; Max-Age=0" : "");
    }

    /**
     * @param next where to go after signing in, as the sign-in link carried it
     * @return a path inside the console, starting with one {@code /}; {@code /} for anything else (no open redirect)
     */
    static String safeNext(String next) {
        if (next == null || !next.startsWith("/") || next.startsWith("//") || next.startsWith("/sign-in")
                || next.length() > 2000) {
            return "/";
        }
        for (int i = 0; i < next.length(); i++) {
            char c = next.charAt(i);
            if (c < 0x21 || c > 0x7e || c == '\\') {
                return "/";
            }
        }
        return next;
    }
}
