#!/usr/bin/env python3
"""Writes the seeds of tests/fuzz/document_fuzz.cpp: one small valid file per
format it names, each followed by the byte that selects that name (the
target reads the name's index from the input's last byte).

    python3 tests/fuzz/make_document_seeds.py OUT_DIR
"""
from __future__ import annotations

import bz2
import gzip
import io
import sys
import tarfile
import zipfile
from pathlib import Path

# In the order of kNames in document_fuzz.cpp.
NAMES = ["notes.txt", "README", "page.html", "guide.md", "records.jsonl", "ls.1", "intro.rst", "book.adoc",
         "main.py", "lib.rs", "config.yaml", "letter.eml", "inbox.mbox", "report.docx", "data.xlsx", "slides.pptx",
         "text.odt", "sheet.ods", "talk.odp", "novel.epub", "bundle.zip", "backup.tar", "log.txt.gz", "changes.bz2"]

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
S = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
P = "http://schemas.openxmlformats.org/presentationml/2006/main"
A = "http://schemas.openxmlformats.org/drawingml/2006/main"
R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
REL = "http://schemas.openxmlformats.org/package/2006/relationships"
TEXT_NS = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
OFFICE_NS = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
TABLE_NS = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"


def zipped(members: dict[str, str | bytes], first: tuple[str, str] | None = None) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        if first:
            z.writestr(zipfile.ZipInfo(first[0]), first[1])  # stored, first: the OpenDocument/EPUB signature
        for name, data in members.items():
            z.writestr(name, data)
    return out.getvalue()


CONTENT_TYPES = '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>'


def relationship(kind: str, target: str) -> str:
    return f'<Relationships xmlns="{REL}"><Relationship Id="rId1" Type="{R}/{kind}" Target="{target}"/></Relationships>'


def docx() -> bytes:
    return zipped({
        "[Content_Types].xml": CONTENT_TYPES,
        "_rels/.rels": relationship("officeDocument", "word/document.xml"),
        "word/document.xml": f'<w:document xmlns:w="{W}"><w:body><w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr>'
                             '<w:r><w:t>Title</w:t></w:r></w:p><w:p><w:r><w:t>Body text.</w:t></w:r></w:p>'
                             '<w:tbl><w:tr><w:tc><w:p><w:r><w:t>cell</w:t></w:r></w:p></w:tc></w:tr></w:tbl>'
                             '</w:body></w:document>',
        "docProps/core.xml": '<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/'
                             'metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/">'
                             '<dc:title>Report</dc:title><dc:creator>Ann</dc:creator></cp:coreProperties>',
    })


def xlsx() -> bytes:
    return zipped({
        "[Content_Types].xml": CONTENT_TYPES,
        "xl/workbook.xml": f'<workbook xmlns="{S}" xmlns:r="{R}"><sheets><sheet name="Budget" sheetId="1" '
                           'r:id="rId1"/></sheets></workbook>',
        "xl/_rels/workbook.xml.rels": relationship("worksheet", "worksheets/sheet1.xml"),
        "xl/sharedStrings.xml": f'<sst xmlns="{S}"><si><t>Rent</t></si><si><r><t>Fo</t></r><r><t>od</t></r></si></sst>',
        "xl/worksheets/sheet1.xml": f'<worksheet xmlns="{S}"><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c>'
                                    '<c r="B1"><v>12</v></c></row><row r="2"><c r="A2" t="s"><v>1</v></c>'
                                    '<c r="B2" t="inlineStr"><is><t>x</t></is></c></row></sheetData></worksheet>',
    })


def pptx() -> bytes:
    return zipped({
        "[Content_Types].xml": CONTENT_TYPES,
        "ppt/presentation.xml": f'<p:presentation xmlns:p="{P}" xmlns:r="{R}"><p:sldIdLst><p:sldId id="256" '
                                'r:id="rId1"/></p:sldIdLst></p:presentation>',
        "ppt/_rels/presentation.xml.rels": relationship("slide", "slides/slide1.xml"),
        "ppt/slides/slide1.xml": f'<p:sld xmlns:p="{P}" xmlns:a="{A}"><p:cSld><p:spTree><p:sp><p:txBody><a:p><a:r>'
                                 '<a:t>Slide text</a:t></a:r></a:p></p:txBody></p:sp></p:spTree></p:cSld></p:sld>',
    })


def opendocument(kind: str, body: str) -> bytes:
    return zipped({
        "content.xml": f'<office:document-content xmlns:office="{OFFICE_NS}" xmlns:text="{TEXT_NS}" '
                       f'xmlns:table="{TABLE_NS}"><office:body>{body}</office:body></office:document-content>',
        "meta.xml": f'<office:document-meta xmlns:office="{OFFICE_NS}" xmlns:dc="http://purl.org/dc/elements/1.1/">'
                    '<office:meta><dc:title>Doc</dc:title></office:meta></office:document-meta>',
    }, first=("mimetype", f"application/vnd.oasis.opendocument.{kind}"))


def epub() -> bytes:
    return zipped({
        "META-INF/container.xml": '<container xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>'
                                  '<rootfile full-path="book.opf"/></rootfiles></container>',
        "book.opf": '<package xmlns="http://www.idpf.org/2007/opf"><metadata xmlns:dc="http://purl.org/dc/elements/'
                    '1.1/"><dc:title>Novel</dc:title></metadata><manifest><item id="c1" href="c1.xhtml" '
                    'media-type="application/xhtml+xml"/></manifest><spine><itemref idref="c1"/></spine></package>',
        "c1.xhtml": "<html><body><h1>Chapter</h1><p>Once upon a time.</p></body></html>",
    }, first=("mimetype", "application/epub+zip"))


EMAIL = ("From: Ann <ann@example.org>\nTo: Bob <bob@example.org>\nSubject: Plans\n"
         "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"b1\"\n\n--b1\n"
         "Content-Type: text/plain; charset=utf-8\n\nSee the notes.\n--b1\nContent-Type: text/plain\n"
         "Content-Disposition: attachment; filename=\"notes.txt\"\n\nAttached notes.\n--b1--\n")


def tar() -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w") as t:
        for name, data in {"docs/a.txt": b"alpha", "docs/b.md": b"# B\n\nbeta"}.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    return out.getvalue()


def seeds() -> dict[str, bytes]:
    return {
        "notes.txt": "Plain text caf\u00e9.\n".encode(),
        "README": b"Read me first.\n",
        "page.html": b"<html><head><title>T</title></head><body><h1>H</h1><p>P &amp; q</p><script>x</script></body></html>",
        "guide.md": b"---\ntitle: Guide\n---\n# Guide\n\nSome *text* and `code`.\n",
        "records.jsonl": b'{"id": "r1", "text": "one", "lang": "en"}\n{"id": "r2", "text": "two"}\n',
        "ls.1": b'.TH LS 1\n.SH NAME\nls \\- list directory contents\n.SH DESCRIPTION\n.B ls\nlists files.\n',
        "intro.rst": b"Intro\n=====\n\n.. note::\n\n   A note.\n\nText with ``code``.\n",
        "book.adoc": b"= Book\n:author: Ann\n\n== Part\n\nText.\n",
        "main.py": b"import os\n\n\nclass A:\n    def f(self):\n        return 1\n\n\ndef g():\n    pass\n",
        "lib.rs": b"/// Doc.\npub fn run() -> u32 {\n    0\n}\n\nimpl A {\n}\n",
        "config.yaml": b"key: value\nlist:\n  - a\n",
        "letter.eml": EMAIL.encode(),
        "inbox.mbox": ("From ann@example.org Mon Jan  1 00:00:00 2024\n" + EMAIL + "\n"
                       "From bob@example.org Mon Jan  1 00:00:00 2024\nSubject: Re\n\nReply.\n").encode(),
        "report.docx": docx(),
        "data.xlsx": xlsx(),
        "slides.pptx": pptx(),
        "text.odt": opendocument("text", "<office:text><text:h>Head</text:h><text:p>Para</text:p></office:text>"),
        "sheet.ods": opendocument("spreadsheet", '<office:spreadsheet><table:table table:name="S"><table:table-row>'
                                  "<table:table-cell><text:p>v</text:p></table:table-cell></table:table-row>"
                                  "</table:table></office:spreadsheet>"),
        "talk.odp": opendocument("presentation", "<office:presentation><text:p>slide</text:p></office:presentation>"),
        "novel.epub": epub(),
        "bundle.zip": zipped({"inner/a.txt": "alpha", "inner/deeper.zip": zipped({"b.txt": "beta"})}),
        "backup.tar": tar(),
        "log.txt.gz": gzip.compress(b"compressed log line\n"),
        "changes.bz2": bz2.compress(b"changes\n"),
    }


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    made = seeds()
    assert sorted(made) == sorted(NAMES), "seeds and NAMES disagree"
    for index, name in enumerate(NAMES):
        (out / name).write_bytes(made[name] + bytes([index]))


if __name__ == "__main__":
    main()
