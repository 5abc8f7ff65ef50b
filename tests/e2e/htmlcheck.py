#!/usr/bin/env python3
"""htmlcheck.py [--xml FILE]... PATH...: check perfbot's HTML pages.

PATH is a page or a directory (every *.html under it).  The site root is
the directory argument (for a page argument, the page's directory): a
link must stay inside it.  For every page:

- it parses with html.parser and every non-void element is closed, in
  order (perfbot writes no optional end tags away); SVG's <x/> is closed;
- every relative href/src/srcset/xlink:href/poster/data/action and url()
  resolves to a file inside the site root (a directory to its
  index.html); a fragment #id names an id (or <a name>) in its target
  page (the page itself for "#id" alone); ids are unique in a page;
- no external reference: http:, https:, //host, file:, or an absolute
  /path in those attributes, in url() and @import of <style> and style=,
  or in a <script> (its text: URLs other than the w3.org namespaces).  A
  URL shown as text is fine;
- accessibility basics: every <svg> has a <title> child, or aria-label /
  aria-labelledby, or is aria-hidden="true" (decorative); every <img> an
  alt (alt="" is decorative); every <input> (but hidden, submit, reset,
  button, image), <select> and <textarea> a label (<label for=ID>, inside
  a <label>, aria-label or aria-labelledby); an onclick only on an
  interactive element (a href, button, input, select, textarea, summary,
  label, option) or on one with both role= and tabindex= (keyboard
  reachable, named).

--xml FILE checks FILE parses as XML (the Atom feed).

Every problem is printed as FILE:LINE: what; exit 1.  Clean: silent, 0.
Exit 2: bad usage or a PATH that does not exist.
"""
import argparse
import html.parser
import os
import re
import sys
import urllib.parse
import xml.etree.ElementTree as ET

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
        "param", "source", "track", "wbr"}
REF_ATTRS = {"href", "src", "xlink:href", "poster", "data", "action"}
INTERACTIVE = {"button", "input", "select", "textarea", "summary", "label", "option"}
NO_LABEL_INPUTS = {"hidden", "submit", "reset", "button", "image"}
CSS_URL = re.compile(r"""url\(\s*(['"]?)([^'")]*)\1\s*\)|@import\s+(['"])([^'"]*)\3""", re.I)
SCRIPT_URL = re.compile(r"""(?:https?:)?//[A-Za-z0-9.-]+\.[A-Za-z]{2,}[^\s'"`)]*""")
W3_NAMESPACE = re.compile(r"^(?:https?:)?//www\.w3\.org/")


class Page(html.parser.HTMLParser):
    """One page parsed: its problems so far, its ids, its references."""

    def __init__(self, path):
        super().__init__(convert_charrefs=True)
        self.path = path
        self.problems = []          # (line, text)
        self.stack = []             # (tag, line, attrs)
        self.ids = {}               # id -> first line
        self.refs = []              # (line, what, url)
        self.label_for = set()
        self.inputs = []            # (line, tag, id, labelled)
        self.svgs = []              # [line, labelled]
        self.open_svgs = []         # the records of the <svg>s open
        self.in_text = None         # "style"/"script" while inside one

    def problem(self, line, text):
        self.problems.append((line, text))

    def handle_starttag(self, tag, attrs):
        self.start(tag, attrs)
        if tag == "svg":
            self.open_svgs.append(self.svgs[-1])
        if tag not in VOID:
            self.stack.append((tag, self.getpos()[0], dict(attrs)))
            if tag in ("style", "script"):
                self.in_text = tag

    def handle_startendtag(self, tag, attrs):
        self.start(tag, attrs)      # <circle ... />: opened and closed

    def start(self, tag, attrs):
        line = self.getpos()[0]
        a = {}
        for k, v in attrs:
            a[k] = "" if v is None else v
        for key in ("id",) + (("name",) if tag == "a" else ()):
            if key in a:
                if key == "id" and a[key] in self.ids:
                    self.problem(line, 'duplicate id "%s" (first at line %d)' % (a[key], self.ids[a[key]]))
                self.ids.setdefault(a[key], line)
        for k, v in a.items():
            if k in REF_ATTRS:
                self.refs.append((line, "%s=" % k, v))
            elif k == "srcset":
                for part in v.split(","):
                    if part.strip():
                        self.refs.append((line, "srcset=", part.split()[0]))
            elif k == "style":
                self.css(line, v)
            elif "url(" in v.lower() and not k.startswith("on"):
                self.css(line, v)   # SVG's fill="url(#gradient)"
        # svg is checked at its end tag: its <title> child comes later
        if tag == "svg":
            parent_svg = any(t == "svg" for t, _, _ in self.stack)
            labelled = bool(a.get("aria-label", "").strip() or a.get("aria-labelledby")
                            or a.get("aria-hidden") == "true" or parent_svg)
            self.svgs.append([line, labelled])
        elif tag == "title" and self.stack and self.stack[-1][0] == "svg" and self.open_svgs:
            self.open_svgs[-1][1] = True
        elif tag == "img" and "alt" not in a:
            self.problem(line, "<img> without alt (alt=\"\" when it is decorative)")
        elif tag in ("input", "select", "textarea"):
            if not (tag == "input" and a.get("type", "text").lower() in NO_LABEL_INPUTS):
                labelled = bool(a.get("aria-label", "").strip() or a.get("aria-labelledby")
                                or any(t == "label" for t, _, _ in self.stack))
                self.inputs.append((line, tag, a.get("id"), labelled))
        if tag == "label" and a.get("for"):
            self.label_for.add(a["for"])
        if "onclick" in a:
            interactive = tag in INTERACTIVE or (tag == "a" and "href" in a)
            if not interactive and not ("role" in a and "tabindex" in a):
                self.problem(line, "onclick on <%s> without role= and tabindex= "
                             "(not reachable by keyboard: use a <button>)" % tag)

    def handle_endtag(self, tag):
        line = self.getpos()[0]
        if tag in VOID:
            return
        if tag in ("style", "script"):
            self.in_text = None
        if not any(t == tag for t, _, _ in self.stack):
            self.problem(line, "</%s> closes nothing open" % tag)
            return
        while self.stack:
            t, opened, _ = self.stack.pop()
            if t == tag:
                break
            if t == "svg" and self.open_svgs:
                self.open_svgs.pop()
            self.problem(opened, "<%s> not closed (</%s> at line %d closes <%s> first)"
                         % (t, tag, line, tag))
        if tag == "svg" and self.open_svgs:
            self.open_svgs.pop()

    def handle_data(self, data):
        if self.in_text == "style":
            self.css(self.getpos()[0], data)
        elif self.in_text == "script":
            first = self.getpos()[0]
            for m in SCRIPT_URL.finditer(data):
                if not W3_NAMESPACE.match(m.group(0)):
                    self.problem(first + data.count("\n", 0, m.start()),
                                 "external reference in a <script>: %s" % m.group(0))

    def css(self, line, text):
        for m in CSS_URL.finditer(text):
            url = m.group(2) if m.group(2) is not None else m.group(4)
            what = "url()" if m.group(2) is not None else "@import"
            self.refs.append((line + text.count("\n", 0, m.start()), what, url))

    def finish(self):
        self.close()
        for tag, line, _ in self.stack:
            self.problem(line, "<%s> not closed" % tag)
        for line, labelled in self.svgs:
            if not labelled:
                self.problem(line, "<svg> without a text alternative (a <title> child, "
                             "aria-label, or aria-hidden=\"true\" when decorative)")
        for line, tag, id_, labelled in self.inputs:
            if not labelled and not (id_ and id_ in self.label_for):
                self.problem(line, "<%s> without a label (<label for=ID>, inside a <label>, "
                             "or aria-label)" % tag)


class Checker:
    def __init__(self):
        self.pages = {}             # realpath -> Page
        self.problems = []

    def page(self, path):
        real = os.path.realpath(path)
        if real not in self.pages:
            p = Page(path)
            try:
                with open(path, encoding="utf-8") as f:
                    p.feed(f.read())
                p.finish()
            except (OSError, UnicodeDecodeError) as e:
                p.problem(1, "cannot read: %s" % e)
            self.pages[real] = p
        return self.pages[real]

    def check(self, path, root):
        p = self.page(path)
        found = list(p.problems)
        for line, what, url in p.refs:
            why = self.reference(path, root, url)
            if why:
                found.append((line, "%s %s" % (what, why)))
        for line, text in sorted(found, key=lambda f: f[0]):
            self.problems.append("%s:%d: %s" % (path, line, text))

    def reference(self, path, root, url):
        """why the reference is wrong, or None"""
        url = url.strip()
        if not url:
            return "is empty"
        u = urllib.parse.urlsplit(url)
        scheme = u.scheme.lower()
        if scheme in ("http", "https", "file", "ftp", "ws", "wss") or url.startswith("//"):
            return "external reference: %s" % url
        if scheme in ("data", "mailto", "javascript"):
            return None
        if scheme:
            return "unknown scheme: %s" % url
        if u.path.startswith("/"):
            return "absolute path (breaks from file:// and below a server's root): %s" % url
        target = path
        if u.path:
            target = os.path.join(os.path.dirname(path), urllib.parse.unquote(u.path))
            real_root = os.path.realpath(root)
            real = os.path.realpath(target)
            if os.path.commonpath([real_root, real]) != real_root:
                return "leaves the site root %s: %s" % (root, url)
            if os.path.isdir(target):
                target = os.path.join(target, "index.html")
            if not os.path.isfile(target):
                return "names no file: %s" % url
        if u.fragment and target.endswith((".html", ".htm", ".svg")):
            frag = urllib.parse.unquote(u.fragment)
            if frag not in self.page(target).ids:
                return "names no id \"%s\" in %s: %s" % (frag, os.path.relpath(target), url)
        return None


def check_xml(path):
    try:
        ET.parse(path)
    except ET.ParseError as e:
        return ["%s:%d: not well-formed XML: %s" % (path, e.position[0], e)]
    except OSError as e:
        return ["%s:1: cannot read: %s" % (path, e)]
    return []


def main():
    ap = argparse.ArgumentParser(description="check perfbot's HTML pages")
    ap.add_argument("paths", nargs="*", metavar="PATH")
    ap.add_argument("--xml", action="append", default=[], metavar="FILE")
    a = ap.parse_args()
    if not a.paths and not a.xml:
        ap.error("nothing to check: give a PATH or --xml FILE")
    c = Checker()
    for path in a.paths:
        if os.path.isdir(path):
            pages = []
            for d, dirs, files in os.walk(path):
                dirs.sort()
                pages += [os.path.join(d, f) for f in sorted(files) if f.endswith(".html")]
            if not pages:
                c.problems.append("%s: no *.html under it" % path)
            for page in pages:
                c.check(page, path)
        elif os.path.isfile(path):
            c.check(path, os.path.dirname(path) or ".")
        else:
            print("htmlcheck: no such file or directory: %s" % path, file=sys.stderr)
            return 2
    for path in a.xml:
        c.problems += check_xml(path)
    for p in c.problems:
        print(p)
    return 1 if c.problems else 0


if __name__ == "__main__":
    sys.exit(main())
