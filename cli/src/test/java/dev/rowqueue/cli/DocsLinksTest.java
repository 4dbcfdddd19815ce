package dev.rowqueue.cli;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every relative link of README.md and docs/*.md leads somewhere: the file exists, and an anchor names a heading of
 * that file as GitHub renders it (lower case, punctuation dropped, spaces to hyphens, repeated headings numbered).
 * Links inside fenced code blocks and to other sites are not followed.
 */
class DocsLinksTest {
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");

    @Test
    void every_relative_link_of_the_docs_names_an_existing_file_and_heading() {
        List<String> broken = new ArrayList<>();
        int checked = 0;
        for (Path file : Docs.files()) {
            for (Link link : links(file)) {
                if (link.target.matches("^[a-z][a-z0-9+.-]*:.*")) {
                    continue; // https:, mailto:, ...
                }
                checked++;
                int hash = link.target.indexOf('#');
                String path = hash < 0 ? link.target : link.target.substring(0, hash);
                String anchor = hash < 0 ? null : link.target.substring(hash + 1);
                Path target = path.isEmpty() ? file : file.getParent().resolve(path).normalize();
                if (!Files.exists(target)) {
                    broken.add(Docs.ROOT.relativize(file) + ":" + link.line + ": " + link.target + " (no such file)");
                } else if (anchor != null && target.toString().endsWith(".md") && !anchors(target).contains(anchor)) {
                    broken.add(Docs.ROOT.relativize(file) + ":" + link.line + ": " + link.target
                            + " (no such heading in " + Docs.ROOT.relativize(target) + ")");
                }
            }
        }
        assertTrue(checked > 100, "links checked: " + checked);
        assertEquals(List.of(), broken, "broken links");
    }

    @Test
    void anchors_follow_githubs_rule() {
        assertEquals("keyed-claims-issue-18-2026-11-24", slug("Keyed claims (issue 18, 2026-11-24)"));
        assertEquals("the-smallest-tuned-module-file-by-file-dialect-h2",
                slug("The smallest tuned module, file by file: `dialect-h2`"));
        assertEquals("mysql-and-mariadb-rowqueue-dialect-mysql", slug("MySQL and MariaDB: `rowqueue-dialect-mysql`"));
    }

    private record Link(int line, String target) {
    }

    private static List<Link> links(Path file) {
        List<Link> links = new ArrayList<>();
        boolean fenced = false;
        List<String> lines = lines(file);
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i);
            if (l.strip().startsWith("```")) {
                fenced = !fenced;
                continue;
            }
            if (fenced) {
                continue;
            }
            Matcher m = LINK.matcher(l.replaceAll("`[^`]*`", "``"));
            while (m.find()) {
                links.add(new Link(i + 1, m.group(1)));
            }
        }
        return links;
    }

    private static Set<String> anchors(Path file) {
        Set<String> anchors = new HashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean fenced = false;
        for (String l : lines(file)) {
            if (l.strip().startsWith("```")) {
                fenced = !fenced;
                continue;
            }
            Matcher m = HEADING.matcher(l);
            if (!fenced && m.matches()) {
                String s = slug(m.group(1));
                int n = seen.merge(s, 1, Integer::sum);
                anchors.add(n == 1 ? s : s + "-" + (n - 1));
            }
        }
        return anchors;
    }

    /** GitHub's heading anchor: lower case, markup and punctuation other than '-' and '_' dropped, spaces to '-'. */
    static String slug(String heading) {
        String text = heading.replaceAll("\\[([^]]*)]\\([^)]*\\)", "$1").toLowerCase(Locale.ROOT);
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
                s.append(c);
            } else if (c == ' ') {
                s.append('-');
            }
        }
        return s.toString();
    }

    private static List<String> lines(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
