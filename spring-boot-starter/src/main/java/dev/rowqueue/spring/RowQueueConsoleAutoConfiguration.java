package dev.rowqueue.spring;

import dev.rowqueue.RowQueues;
import dev.rowqueue.console.Console;
import jakarta.servlet.http.HttpServlet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.util.ClassUtils;

import java.util.Locale;

/**
 * The operator console of {@code rowqueue-console}, mounted at {@code rowqueue.console.path} (default
 * {@code /rowqueue}) of a servlet web application, when {@code rowqueue.console.enabled=true}, the console's jar is on
 * the class path and a {@link RowQueues} bean exists.
 *
 * <p>Authentication ({@code rowqueue.console.auth}): with Spring Security in the application (a
 * {@code springSecurityFilterChain}), Spring Security signs people in and the console serves whoever it authenticated
 * (with {@code rowqueue.console.role}, only those in that role); Spring Security's CSRF token is carried by every form
 * and the console checks its own too. Without Spring Security the console uses its own token
 * ({@code rowqueue.console.token}, or the environment variable {@code ROWQUEUE_CONSOLE_TOKEN}): a sign-in form,
 * SameSite=Strict sessions, {@code Authorization: Bearer}. With neither, the application does not start: the console
 * never runs without a credential.
 */
@AutoConfiguration(after = RowQueueAutoConfiguration.class, afterName = {
        "org.springframework.boot.autoconfigure.security.servlet.SecurityAutoConfiguration",
        "org.springframework.boot.autoconfigure.security.servlet.SecurityFilterAutoConfiguration"})
@ConditionalOnClass({Console.class, HttpServlet.class, ServletRegistrationBean.class})
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnBean(RowQueues.class)
@ConditionalOnProperty(prefix = "rowqueue.console", name = "enabled", havingValue = "true")
@EnableConfigurationProperties(RowQueueProperties.class)
public class RowQueueConsoleAutoConfiguration {
    private static final Logger log = LoggerFactory.getLogger(RowQueueConsoleAutoConfiguration.class);
    /** The bean Spring Security's filter chain is registered as. */
    static final String SPRING_SECURITY_FILTER = "springSecurityFilterChain";

    /** Creates the configuration; Spring does. */
    public RowQueueConsoleAutoConfiguration() {
    }

    /**
     * @param rowQueues  what the console shows
     * @param properties {@code rowqueue.console.*}
     * @param beans      where Spring Security's filter chain is looked for
     * @return the console's servlet, mapped to {@code rowqueue.console.path/*}
     */
    @Bean
    @ConditionalOnMissingBean(name = "rowQueueConsole")
    public ServletRegistrationBean<ConsoleServlet> rowQueueConsole(RowQueues rowQueues, RowQueueProperties properties,
                                                                  ListableBeanFactory beans) {
        RowQueueProperties.Console c = properties.getConsole();
        String path = path(c.getPath());
        Console.Builder builder = Console.builder(rowQueues).readOnly(c.isReadOnly()).refresh(c.getRefresh());
        ConsoleServlet.Operators operators;
        if (springSecurity(c.getAuth(), beans)) {
            builder.containerAuthentication();
            operators = new SpringSecurityOperators(c.getRole());
            log.info("rowqueue console at {}/ behind Spring Security{}{}", path,
                    c.getRole() == null ? "" : ", role " + c.getRole(), c.isReadOnly() ? ", read-only" : "");
        } else {
            if (c.getToken() == null || c.getToken().isBlank()) {
                throw new IllegalStateException("rowqueue.console.enabled=true needs a credential: this application"
                        + " has no Spring Security, so set rowqueue.console.token (at least 16 characters; the"
                        + " environment variable ROWQUEUE_CONSOLE_TOKEN sets it too), or add Spring Security");
            }
            builder.token(c.getToken());
            operators = ConsoleServlet.NONE;
            log.info("rowqueue console at {}/ with its own token ({}){}", path, Console.tokenId(c.getToken()),
                    c.isReadOnly() ? ", read-only" : "");
        }
        ServletRegistrationBean<ConsoleServlet> registration = new ServletRegistrationBean<>(
                new ConsoleServlet(builder.build(), operators), path + "/*");
        registration.setName("rowQueueConsole");
        return registration;
    }

    private static boolean springSecurity(RowQueueProperties.Console.Auth auth, ListableBeanFactory beans) {
        boolean present = ClassUtils.isPresent("org.springframework.security.web.csrf.CsrfToken",
                RowQueueConsoleAutoConfiguration.class.getClassLoader())
                && beans.containsBeanDefinition(SPRING_SECURITY_FILTER);
        return switch (auth) {
            case AUTO -> present;
            case TOKEN -> false;
            case SPRING_SECURITY -> {
                if (!present) {
                    throw new IllegalStateException("rowqueue.console.auth=spring-security, but this application has"
                            + " no Spring Security filter chain (" + SPRING_SECURITY_FILTER + ")");
                }
                yield true;
            }
        };
    }

    /** @return the path with one leading slash and none trailing; {@code /} alone is refused */
    static String path(String path) {
        String p = path == null ? "" : path.trim();
        while (p.endsWith("/")) {
            p = p.substring(0, p.length() - 1);
        }
        if (!p.startsWith("/")) {
            p = "/" + p;
        }
        if (p.length() < 2 || p.contains("*") || p.toLowerCase(Locale.ROOT).contains("..")) {
            throw new IllegalArgumentException("rowqueue.console.path must be a path such as /rowqueue, got '" + path
                    + "'");
        }
        return p;
    }
}
