package dev.rowqueue.tck;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.PullResponseItem;
import org.junit.jupiter.api.Assumptions;
import org.testcontainers.DockerClientFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The container image a Testcontainers TCK target runs on: present in the local engine, or pulled from its registry,
 * or the target does not run and its report says NOT RUN with the reason. Call it first in
 * {@link RowQueueTck#target()}, before creating the container, e.g.
 * {@code new PostgreSQLContainer(ContainerImages.require("postgres:17-alpine"))}.
 *
 * <p>Testcontainers is an optional dependency of the kit: a module whose tests call this class brings it itself.
 *
 * <p>Images that can be built here from Debian packages are listed in the file named by the system property
 * {@value #LIST_PROPERTY} ({@code .ci/images/list} in rowqueue's build: one {@code <image> <Containerfile>} a line;
 * {@code .ci/images/build} builds them, tagged with the names the tests use). A listed image that is missing is
 * reported as not built; any other missing image as available from its registry only.
 */
public final class ContainerImages {

    /** The system property naming the list of images built here. */
    public static final String LIST_PROPERTY = "rowqueue.container.images";

    private ContainerImages() {
    }

    /**
     * Makes sure the image is in the local engine: there already (built here, or pulled earlier), or pulled now.
     *
     * @param image an image name as Testcontainers takes it, e.g. {@code "mariadb:11.8"}
     * @return the same name, to pass to the container's constructor
     * @throws org.opentest4j.TestAbortedException if there is no Docker engine, or the image is not there and cannot
     *                                             be pulled: the target is reported NOT RUN with the reason
     * @throws IllegalArgumentException            if the name is blank
     */
    public static String require(String image) {
        if (image == null || image.isBlank()) {
            throw new IllegalArgumentException("an image name is required");
        }
        String full = normalize(image);
        DockerClientFactory factory = DockerClientFactory.instance();
        Assumptions.assumeTrue(factory.isDockerAvailable(), () -> "no Docker engine here (DOCKER_HOST unset, no "
                + "/var/run/docker.sock): image " + image + " cannot run");
        DockerClient client = factory.client();
        try {
            client.inspectImageCmd(full).exec();
            return image;
        } catch (NotFoundException absent) {
            // not here: pull it below
        }
        String why = pull(client, full);
        if (why == null) {
            return image;
        }
        Assumptions.assumeTrue(false, () -> builtHere(full)
                ? "image " + full + " not built here: run .ci/images/build (pulling it failed too: " + why + ")"
                : "registry only: image " + full + " is not built from Debian packages here and its registry does "
                        + "not answer (" + why + ")");
        throw new AssertionError("unreachable");
    }

    /** @return null when the image is here after pulling it, else why not */
    private static String pull(DockerClient client, String full) {
        AtomicReference<String> error = new AtomicReference<>();
        try {
            int colon = full.lastIndexOf(':');
            // an own callback: docker-java's PullImageResultCallback fails on podman's error items (no status)
            client.pullImageCmd(full.substring(0, colon)).withTag(full.substring(colon + 1))
                    .exec(new ResultCallback.Adapter<PullResponseItem>() {
                        @Override
                        public void onNext(PullResponseItem item) {
                            if (item.getErrorDetail() != null && item.getErrorDetail().getMessage() != null) {
                                error.compareAndSet(null, item.getErrorDetail().getMessage());
                            } else if (item.getError() != null) {
                                error.compareAndSet(null, item.getError());
                            }
                        }
                    }).awaitCompletion();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        } catch (RuntimeException e) {
            error.compareAndSet(null, e.getMessage() == null ? e.toString() : e.getMessage());
        }
        try {
            client.inspectImageCmd(full).exec();
            return null;
        } catch (NotFoundException absent) {
            return firstLine(error.get() == null ? "the pull did not bring it" : error.get());
        }
    }

    /**
     * @param image an image name
     * @return the name with its registry, repository path and tag made explicit, as the engines store it:
     *         {@code mysql:9.7} becomes {@code docker.io/library/mysql:9.7}
     */
    static String normalize(String image) {
        String name = image.trim();
        int slash = name.indexOf('/');
        String first = slash < 0 ? "" : name.substring(0, slash);
        boolean hasRegistry = first.contains(".") || first.contains(":") || first.equals("localhost");
        if (!hasRegistry) {
            name = "docker.io/" + (slash < 0 ? "library/" : "") + name;
        }
        int lastSlash = name.lastIndexOf('/');
        if (name.indexOf(':', lastSlash) < 0 && !name.contains("@")) {
            name = name + ":latest";
        }
        return name.toLowerCase(Locale.ROOT);
    }

    /** @return whether the list of images built here names this one */
    static boolean builtHere(String full) {
        String list = System.getProperty(LIST_PROPERTY);
        if (list == null || list.isBlank() || !Files.isRegularFile(Path.of(list))) {
            return false;
        }
        try {
            List<String> lines = Files.readAllLines(Path.of(list));
            return lines.stream().map(String::trim).filter(l -> !l.isEmpty() && !l.startsWith("#"))
                    .map(l -> l.split("\\s+")[0]).anyMatch(name -> normalize(name).equals(full));
        } catch (IOException e) {
            return false;
        }
    }

    private static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
