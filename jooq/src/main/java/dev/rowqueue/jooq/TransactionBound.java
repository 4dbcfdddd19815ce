package dev.rowqueue.jooq;

import org.jooq.Configuration;
import org.jooq.ConnectionProvider;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiFunction;

/**
 * Makes the view that {@code using(Configuration)} returns: a handle of the same interface whose every operation
 * acquires a connection from the configuration's {@link Configuration#connectionProvider() connection provider},
 * runs on the handle bound to it ({@code using(Connection)}) and releases it, as jOOQ does around each of its own
 * statements. Inside a transaction the provider answers the transaction's connection (and releasing it does not end
 * the transaction), so the operation joins the transaction.
 *
 * <p>A dynamic proxy rather than a class per interface: every method of the interface, those added to it later
 * included, is forwarded the same way without this module having to follow the API's changes one by one.
 *
 * @param <T> the handle's interface
 */
final class TransactionBound<T> implements InvocationHandler {
    private final Class<T> type;
    private final T handle;
    private final Configuration configuration;
    private final BiFunction<T, Connection, T> bind;
    private final Set<String> local;
    private final Set<String> refused;

    private TransactionBound(Class<T> type, T handle, Configuration configuration, BiFunction<T, Connection, T> bind,
                             Set<String> local, Set<String> refused) {
        this.type = type;
        this.handle = handle;
        this.configuration = configuration;
        this.bind = bind;
        this.local = local;
        this.refused = refused;
    }

    /**
     * @param type          the handle's interface
     * @param handle        the handle (normally one of a {@code RowQueues} instance)
     * @param configuration the jOOQ configuration whose connection provider each operation uses
     * @param bind          {@code using(Connection)} of the interface
     * @param local         methods without parameters that read the handle's own settings, answered by the handle
     *                      without a connection
     * @param refused       methods a bound handle does not offer (they throw {@link UnsupportedOperationException})
     * @param <T>           the interface
     * @return the view
     */
    static <T> T view(Class<T> type, T handle, Configuration configuration, BiFunction<T, Connection, T> bind,
                      Set<String> local, Set<String> refused) {
        Objects.requireNonNull(handle, "handle");
        Objects.requireNonNull(configuration, "configuration");
        return type.cast(Proxy.newProxyInstance(TransactionBound.class.getClassLoader(), new Class<?>[] {type},
                new TransactionBound<>(type, handle, configuration, bind, local, refused)));
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        int arity = args == null ? 0 : args.length;
        if (method.getDeclaringClass() == Object.class) {
            switch (method.getName()) {
                case "equals":
                    return proxy == args[0];
                case "hashCode":
                    return System.identityHashCode(proxy);
                default:
                    return type.getSimpleName() + "[" + handle + ", on the connections of a jOOQ configuration]";
            }
        }
        String name = method.getName();
        if (arity == 0 && local.contains(name)) {
            return forward(method, handle, args);
        }
        if (refused.contains(name)) {
            throw new UnsupportedOperationException(name + " is not offered by a handle bound to a jOOQ configuration's"
                    + " connection; call it on the handle of the RowQueues instance");
        }
        if (name.equals("using") && arity == 1 && args[0] instanceof Connection connection) {
            return bind.apply(handle, connection);
        }
        ConnectionProvider provider = configuration.connectionProvider();
        Connection connection = provider.acquire();
        Throwable failure = null;
        try {
            return forward(method, bind.apply(handle, connection), args);
        } catch (Throwable t) {
            failure = t;
            throw t;
        } finally {
            if (failure == null) {
                provider.release(connection);
            } else {
                try {
                    provider.release(connection);
                } catch (RuntimeException e) {
                    failure.addSuppressed(e);
                }
            }
        }
    }

    private static Object forward(Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
