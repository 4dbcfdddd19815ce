package dev.rowqueue.console;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Headless Chromium driven through chromium-driver (Debian's packages {@code chromium} and {@code chromium-driver}),
 * for the console's browser tests. Where they are not installed the tests are aborted with the reason (reported as
 * skipped: NOT RUN, never passed), unless {@code ROWQUEUE_BROWSER_TESTS=required} (CI sets it after installing
 * them), which makes their absence a failure. {@code ROWQUEUE_CHROMIUM} and {@code ROWQUEUE_CHROMEDRIVER} point
 * elsewhere than {@code /usr/bin}.
 */
final class Browser implements AutoCloseable {
    static final Path SCREENSHOTS = Path.of(System.getProperty("rowqueue.console.screenshots", "target/screenshots"));

    final WebDriver driver;
    private final Path profile;

    private Browser(WebDriver driver, Path profile) {
        this.driver = driver;
        this.profile = profile;
    }

    /** @return a browser, or the test is aborted (or failed, where browser tests are required) with the reason */
    static Browser start() {
        Path chromium = Path.of(env("ROWQUEUE_CHROMIUM", "/usr/bin/chromium"));
        Path chromedriver = Path.of(env("ROWQUEUE_CHROMEDRIVER", "/usr/bin/chromedriver"));
        String missing = !Files.isExecutable(chromium) ? chromium.toString()
                : !Files.isExecutable(chromedriver) ? chromedriver.toString() : null;
        if (missing != null) {
            String reason = "NOT RUN: browser tests need Chromium and chromium-driver (" + missing + " is missing;"
                    + " apt-get install chromium chromium-driver)";
            if ("required".equals(System.getenv("ROWQUEUE_BROWSER_TESTS"))) {
                Assertions.fail(reason + ", and ROWQUEUE_BROWSER_TESTS=required");
            }
            Assumptions.abort(reason);
        }
        try {
            Path profile = Files.createTempDirectory("rowqueue-chromium");
            ChromeOptions options = new ChromeOptions();
            options.setBinary(chromium.toFile());
            // the flags that work on this kind of machine: no sandbox as root, and none of Chromium's own traffic
            options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    "--disable-dev-shm-usage", "--user-data-dir=" + profile, "--window-size=1280,860",
                    "--force-device-scale-factor=1");
            ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(chromedriver.toFile())
                    .usingAnyFreePort().build();
            ChromeDriver driver = new ChromeDriver(service, options);
            driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
            driver.manage().timeouts().scriptTimeout(Duration.ofSeconds(10));
            return new Browser(driver, profile);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String env(String name, String dflt) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? dflt : v;
    }

    /** Opens a URL. */
    Browser open(URI uri) {
        driver.get(uri.toString());
        return this;
    }

    /** @return the current page's path and query, e.g. {@code /sign-in?next=%2F} */
    String location() {
        URI u = URI.create(driver.getCurrentUrl());
        return u.getRawPath() + (u.getRawQuery() == null ? "" : "?" + u.getRawQuery());
    }

    /**
     * Waits up to 15 s until the first element found has this text (the page a click navigates to may still be
     * loading, or the old page still shown), then returns the text found, for an assertion that names it.
     */
    String awaitText(org.openqa.selenium.By by, String expected) {
        return awaitText(by, expected::equals);
    }

    /**
     * Waits up to 15 s until the first element found has a text that passes {@code accepted}, reading it afresh each
     * time (an element of the page being replaced goes stale under the read), then returns the last text found.
     */
    String awaitText(org.openqa.selenium.By by, java.util.function.Predicate<String> accepted) {
        String[] found = new String[1];
        poll(() -> {
            try {
                found[0] = driver.findElements(by).stream().findFirst().map(e -> e.getText()).orElse(null);
            } catch (org.openqa.selenium.StaleElementReferenceException e) {
                found[0] = null; // the page changed under the read
            }
            return found[0] != null && accepted.test(found[0]);
        });
        return found[0];
    }

    /**
     * Waits until the browser is on this path (and query), as a click or a submitted form navigates only after the
     * click returns: up to 15 s, then fails with where it is.
     */
    void awaitLocation(String expected) {
        poll(() -> expected.equals(location()));
        org.junit.jupiter.api.Assertions.assertEquals(expected, location());
    }

    /** Checks {@code done} every 50 ms until it holds, for up to 15 s (or until the thread is interrupted). */
    private static void poll(java.util.function.BooleanSupplier done) {
        long end = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        while (!done.getAsBoolean() && System.nanoTime() < end) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Signs in through the form of the page the browser is on (the sign-in page). */
    void signInHere(String token) {
        driver.findElement(By.id("token")).sendKeys(token);
        driver.findElement(By.cssSelector("form.stack button[type=submit]")).click();
        new WebDriverWait(driver, Duration.ofSeconds(10)).until(d -> !location().startsWith("/sign-in")
                || !d.findElements(By.cssSelector(".notice")).isEmpty());
    }

    /**
     * Writes a screenshot of the page to {@code target/screenshots/NAME.png}.
     *
     * @return the file
     */
    Path screenshot(String name) {
        try {
            Files.createDirectories(SCREENSHOTS);
            Path file = SCREENSHOTS.resolve(name + ".png");
            Files.write(file, ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES));
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        try {
            driver.quit();
        } finally {
            try (Stream<Path> files = Files.walk(profile)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException ignored) {
                // a temporary profile left behind
            }
        }
    }
}
