"""The audit's and the deep checks' page verdicts against a seeded site on 127.0.0.1, found from
outside: the Content-Type's charset, an HTML page at a file-like URL, a merged X-Robots-Tag, a
sampled audit's records, and the two commands reading X-Robots-Tag alike."""

from __future__ import annotations

import json

from pytest_httpserver import HTTPServer
from test_audit import audit, html, records, run, sitemap

from sitemap_tui.engine.audit_page import charset_of, head_facts, x_robots_directives
from sitemap_tui.validate.deep_page import x_robots_noindex

CAFE = '<!DOCTYPE html><html><head><title>Café</title><link rel="canonical" href="/caf%C3%A9"></head><body></body></html>'


def test_a_pages_charset_comes_from_its_content_type(httpserver: HTTPServer) -> None:
    """A UTF-8 page with no <meta charset> whose canonical names itself ("/café" in UTF-8
    bytes) was read as Latin-1: "canonicalised to …/cafÃ©", non-indexable, and the deep checks'
    deep-non-canonical. Near miss: with no charset anywhere, libxml2's own guess stands."""
    page = CAFE.replace("/caf%C3%A9", "/café").encode()
    httpserver.expect_request("/café").respond_with_data(page, content_type="text/html; charset=utf-8")
    target = sitemap(httpserver, ["/caf%C3%A9"])
    code, out, err = audit(target, "--format", "jsonl")
    (rec,) = records(out).values()
    assert rec["indexable"] is True and rec["reason"] == "indexable", rec
    code, out, err = run("validate", target, "--deep", "--workers", "0", "--no-history", "--format", "json")
    assert "deep-non-canonical" not in {i["rule"] for i in json.loads(out)["issues"]}, out
    facts = head_facts(page, "https://example.com/caf%C3%A9", charset=charset_of("text/html; charset=UTF-8"))
    assert facts.canonical == "https://example.com/café" and facts.title == "Café"
    assert charset_of("text/html; charset=no-such-thing") is None


def test_a_page_that_says_no_charset_anywhere_is_read_as_utf8_when_it_is(httpserver: HTTPServer) -> None:
    """Found from outside: a UTF-8 page served as plain "text/html" with no <meta charset> was
    read as Latin-1 (libxml2's guess): its canonical "/café" became "/cafÃ©", "canonicalised",
    non-indexable. Its bytes are UTF-8, so it is read so, as browsers and Google sniff it. Near
    misses: windows-1252 bytes stay windows-1252; a <meta charset> still decides."""
    page = CAFE.replace("/caf%C3%A9", "/café")
    httpserver.expect_request("/café").respond_with_data(page.encode(), content_type="text/html")
    target = sitemap(httpserver, ["/caf%C3%A9"])
    code, out, err = audit(target, "--format", "jsonl")
    (rec,) = records(out).values()
    assert rec["indexable"] is True and rec["reason"] == "indexable", rec
    url = "https://example.com/caf%C3%A9"
    assert head_facts(page.encode(), url).title == "Café"
    assert head_facts(page.encode() + "é".encode()[:1], url).canonical == "https://example.com/café"  # cut short
    assert head_facts(page.encode("cp1252"), url).canonical == "https://example.com/café"
    latin = page.replace("<head>", '<head><meta charset="iso-8859-1">').encode()
    assert head_facts(latin, url).title == "CafÃ©"  # (what the page says of itself decides)
    # found by a review: the word "charset" in a description turned the sniff off; a late meta
    # (after the prescan's 1,024 bytes) still decides
    described = page.replace("<head>", '<head><meta name="description" content="Fixing the charset">').encode()
    assert head_facts(described, url).canonical == "https://example.com/café"
    late = page.replace("</title>", "</title>" + " " * 2000 + '<meta charset="iso-8859-1">').encode()
    assert head_facts(late, url).title == "CafÃ©"


def test_an_html_page_at_a_file_like_url_is_read(httpserver: HTTPServer) -> None:
    """/page.txt and /data.xml served as text/html with a noindex were "indexable" after a HEAD
    alone (the deep checks said deep-noindex). Near miss: a real text file stays a HEAD."""
    noindex = html('<meta name="robots" content="noindex">')
    for path in ("/page.txt", "/data.xml"):
        httpserver.expect_request(path).respond_with_data(noindex, content_type="text/html")
    httpserver.expect_request("/notes.txt").respond_with_data("plain", content_type="text/plain")
    code, out, err = audit(sitemap(httpserver, ["/page.txt", "/data.xml", "/notes.txt"]), "--format", "jsonl")
    recs = records(out)
    assert recs["page.txt"]["indexable"] is False and "noindex" in recs["page.txt"]["reason"], recs["page.txt"]
    assert recs["data.xml"]["indexable"] is False and "noindex" in recs["data.xml"]["reason"]
    methods = [(req.method, req.path) for req, _ in httpserver.log]
    assert ("GET", "/page.txt") in methods and ("GET", "/notes.txt") not in methods


def test_a_merged_x_robots_tag_scopes_each_agents_items() -> None:
    """"otherbot: noarchive, googlebot: noindex" (two headers merged into one, RFC 9110 §5.3)
    was all otherbot's: the Googlebot noindex lost, in the audit and the deep checks alike.
    Near misses: one agent's list stays its own; a value directive is no agent."""
    assert x_robots_directives(["otherbot: noarchive, googlebot: noindex"]) == ["otherbot: noarchive", "googlebot: noindex"]
    assert x_robots_directives(["googlebot: noindex, nofollow"]) == ["googlebot: noindex", "googlebot: nofollow"]
    assert x_robots_directives(["max-snippet: 20, noindex"]) == ["max-snippet: 20", "noindex"]
    assert x_robots_noindex(["googlebot: noarchive, bingbot: noindex"]) == "bingbot: noindex"
    assert x_robots_noindex(["otherbot: noindex, nofollow"]) is None
    # the deep checks read a date that has passed as the audit does
    assert x_robots_noindex(["unavailable_after: 2010-01-01T00:00:00Z"]) is not None


def test_a_sampled_audit_in_jsonl_says_what_it_left_out(httpserver: HTTPServer) -> None:
    """--sample 2 --format jsonl wrote 2 records and nothing said the others were not audited
    (the text report says it). Near miss: a whole audit says nothing of the kind."""
    paths = [f"/p{i}" for i in range(5)]
    for path in paths:
        httpserver.expect_request(path).respond_with_data(html(), content_type="text/html")
    target = sitemap(httpserver, paths)
    code, out, err = audit(target, "--sample", "2", "--format", "jsonl")
    assert code == 0 and len(out.splitlines()) == 2
    assert "3 listed URLs of 5 not audited" in err, err
    code, out, err = audit(target, "--format", "jsonl")
    assert len(out.splitlines()) == 5 and "not audited" not in err


def test_a_204_has_a_group_and_a_pdfs_noindex_is_its_reason(httpserver: HTTPServer) -> None:
    """A 204 was counted non-indexable in no group (the groups added up to one less); a PDF
    sent with X-Robots-Tag: noindex was "not HTML", its noindex unsaid. Near miss: a plain PDF
    stays "not HTML"."""
    httpserver.expect_request("/empty").respond_with_data("", status=204)
    httpserver.expect_request("/doc.pdf").respond_with_data(b"%PDF-1.4", content_type="application/pdf")
    httpserver.expect_request("/hidden.pdf").respond_with_data(b"%PDF-1.4", content_type="application/pdf",
                                                               headers={"X-Robots-Tag": "noindex"})
    target = sitemap(httpserver, ["/empty", "/doc.pdf", "/hidden.pdf"])
    code, out, err = audit(target, "--format", "jsonl")
    recs = records(out)
    assert recs["hidden.pdf"]["reason"] == "non-indexable: noindex (noindex)", recs["hidden.pdf"]
    assert recs["doc.pdf"]["reason"].startswith("non-indexable: not HTML")
    code, out, err = audit(target)
    assert "Other status (not 200): 1" in out and "/empty" in out.split("Other status")[1].split("\n\n")[0], out
    code, out, err = audit(target, "--fail-if", "other_status>0")
    assert code == 1 and "other_status" in err


def test_a_legacy_label_is_read_as_browsers_read_it() -> None:
    """Regression found from outside: with the Content-Type's label handed to libxml2, a page
    labelled Shift_JIS using cp932's characters (or us-ascii carrying UTF-8) was read up to the
    first byte outside the label and its noindex after it lost: "indexable". Labels are read as
    the WHATWG Encoding standard reads them (Shift_JIS as cp932, us-ascii as windows-1252)."""
    for label, text, codec in (("Shift_JIS", "①株式会社", "cp932"), ("gb2312", "鍚", "gbk"),
                               ("euc-kr", "똠", "cp949"), ("us-ascii", "Café", "utf-8")):
        page = (f'<html><head><title>{text}</title><meta name="robots" content="noindex">'
                '<link rel="canonical" href="/elsewhere"></head></html>').encode(codec)
        facts = head_facts(page, "https://example.com/p", charset=charset_of(f"text/html; charset={label}"))
        assert facts.robots == ["noindex"] and facts.canonical == "https://example.com/elsewhere", label
    # a UTF-16 label on a body with no NUL in it is no UTF-16: the page is read as it is
    page = b'<html><head><meta name="robots" content="noindex"></head></html>'
    assert head_facts(page, "https://example.com/p", charset=charset_of("text/html; charset=utf-16")).robots == ["noindex"]


def test_a_retry_after_of_the_get_after_a_head_is_a_get(httpserver: HTTPServer) -> None:
    """Regression found from outside: HEAD answered 200 text/html, the GET 503 with Retry-After,
    and the retry was a HEAD again: the page's noindex never read, "indexable". Near miss: 405
    on HEAD goes to GET, and its retry too."""
    from werkzeug import Request, Response

    seen: list[str] = []

    def page(request: Request) -> Response:
        seen.append(f"{request.method} {request.path}")
        if request.method == "HEAD" and request.path.startswith("/h405"):
            return Response(status=405)
        if request.method == "GET" and sum(s == f"GET {request.path}" for s in seen) == 1:
            return Response("busy", status=503, headers={"Retry-After": "1"})
        return Response(html('<meta name="robots" content="noindex">'), content_type="text/html")

    for path in ("/page.txt", "/h405.txt"):
        httpserver.expect_request(path).respond_with_handler(page)
    code, out, err = audit(sitemap(httpserver, ["/page.txt", "/h405.txt"]), "--format", "jsonl")
    recs = records(out)
    for name in ("page.txt", "h405.txt"):
        assert "noindex" in recs[name]["reason"], (name, recs[name], seen)
    assert seen.count("GET /page.txt") == 2 and seen.count("HEAD /page.txt") == 1, seen


def test_a_passed_unavailable_after_is_noindex_on_a_pdf_and_in_a_meta_for_both_commands() -> None:
    """Found from outside: a PDF's passed unavailable_after was "not HTML" in the audit and
    noindex in the deep checks; a meta's was noindex in the audit, nothing in the deep checks."""
    from sitemap_tui.engine.audit_page import verdict
    from sitemap_tui.validate.deep_page import analyse_html

    pdf = verdict(status=200, error=None, timed_out=False, redirects=0, redirect_problem=None,
                  final_url="https://example.com/a.pdf", content_type="application/pdf",
                  robots=x_robots_directives(["unavailable_after: 2020-01-01"]), canonical=None, blocked=False)
    assert not pdf.indexable and "noindex (unavailable_after" in pdf.reason
    page = html('<meta name="robots" content="unavailable_after: 2020-01-01">').encode()
    assert analyse_html(page, "https://example.com/p").noindex is not None
    later = html('<meta name="robots" content="unavailable_after: 2999-01-01">').encode()
    assert analyse_html(later, "https://example.com/p").noindex is None  # near miss: not yet
