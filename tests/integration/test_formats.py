"""`sieve index add` on the files people have: extensionless text, text in
Latin-1, gzip/bzip2/xz files, ZIP and tar archives (members as
"archive!path" documents), manual pages, reStructuredText, source code,
e-mail, PDF, and binary files that are left out; the run's summary counts
files by format and by reason, a compression bomb is one file's error, and
--include/--exclude pick files. Then a sample of the real documentation
this machine's packages installed under /usr/share/doc, of which at least
95% of the files that hold text must be read without an error.

The fixtures are written here with Python's own gzip, bz2, lzma, zipfile,
tarfile and email modules; what went in is read from the index's SQLite
file with Python's sqlite3."""
from __future__ import annotations

import bz2
import email.message
import gzip
import io
import json
import lzma
import os
import shutil
import sqlite3
import subprocess
import tarfile
import zipfile
from pathlib import Path

import pytest

import tier
from conftest import sieve_bin
from test_hostile_ingest import add, stored, tiny  # noqa: F401 (tiny is a fixture)


def tar_gz(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return out.getvalue()


def zip_of(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return out.getvalue()


def minimal_pdf(pages: list[str]) -> bytes:
    """A PDF of one line of Helvetica per page, with a correct cross-reference table."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b""]
    kids = []
    for text in pages:
        content = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
        objects.append(f"<< /Length {len(content)} >>\nstream\n".encode() + content + b"\nendstream")
        objects.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {len(objects)} 0 R "
                       f"/Resources << /Font << /F1 {len(objects) + 2 + 2 * (len(pages) - len(kids) - 1)} 0 R >> >> >>"
                       .encode())
        kids.append(len(objects))
    font = len(objects) + 1
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    # Every page names the font by its number, fixed now that it is known.
    for page in kids:
        objects[page - 1] = objects[page - 1].split(b"/F1 ")[0] + f"/F1 {font} 0 R >> >> >>".encode()
    objects[1] = f"<< /Type /Pages /Kids [{' '.join(f'{k} 0 R' for k in kids)}] /Count {len(kids)} >>".encode()
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def mail_with_attachment() -> bytes:
    message = email.message.EmailMessage()
    message["From"] = "Ada <ada@example.org>"
    message["To"] = "team@example.org"
    message["Subject"] = "Quarterly figures"
    message["Date"] = "Mon, 06 May 2024 10:00:00 +0000"
    message.set_content("The figures are attached.\n")
    message.add_attachment(b"Revenue rose by a third in the spring quarter.\n", maintype="text", subtype="plain",
                           filename="figures.txt")
    return bytes(message)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    docs = tmp_path_factory.mktemp("formats") / "docs"
    docs.mkdir()
    files = {
        "copyright": b"Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"
                     b"Upstream-Name: lighthouse\nLicense: GPL-2+\n",
        "README.Debian": "Le phare s'allume \xe0 la tomb\xe9e de la nuit.\n".encode("latin-1"),
        "legacy.html": "<html><body><p>Caf\xe9 cr\xe8me, no charset declared.</p></body></html>".encode("latin-1"),
        "changelog.Debian.gz": gzip.compress(b"lighthouse (1.2-1) unstable\n\n  * Brighter lamp for foggy nights.\n"),
        "NEWS.bz2": bz2.compress(b"Version 2 adds a foghorn.\n"),
        "TODO.xz": lzma.compress(b"Paint the tower red and white.\n"),
        "lighthouse.1.gz": gzip.compress(b'.TH LIGHTHOUSE 1\n.SH NAME\nlighthouse \\- keep ships off the rocks\n'),
        "guide.rst": b"Keeper's guide\n==============\n\nTrim the wick at dusk.\n",
        "lamp.py": b"def light(lamp):\n    return lamp.on()\n",
        "bundle.zip": zip_of({"logs/storm.txt": b"The storm of 1903 broke the lens.\n",
                             "inner.tar.gz": tar_gz({"keepers.md": b"# Keepers\n\nAgnes kept the light.\n"})}),
        "manual.pdf": minimal_pdf(["Climb the stairs slowly.", "Polish the lens daily."]),
        "message.eml": mail_with_attachment(),
        "logo.png": b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + os.urandom(200),
        "bomb.txt.gz": gzip.compress(b"a" * (40 << 20)),
    }
    for name, data in files.items():
        (docs / name).write_bytes(data)
    return docs


def test_every_format_is_read_and_counted(tiny, corpus, tmp_path):
    index = tmp_path / "idx"
    result = add(index, "--json", str(corpus))
    # The compression bomb is the one file that could not be read: the run says so with its status.
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert report["files_by_format"] == {
        "PDF": 1, "ZIP archive": 1, "bzip2-compressed file": 1, "e-mail": 1, "gzip-compressed file": 2,
        "HTML": 1, "plain text": 2, "reStructuredText": 1, "source code or configuration": 1,
        "xz-compressed file": 1}, report
    assert report["skipped_by_reason"] == {"binary file": 1, "could not be read": 1}, report
    assert len(report["errors"]) == 1 and "bomb.txt.gz" in report["errors"][0] \
        and "expands more than 200 times" in report["errors"][0], report["errors"]
    # The two Latin-1 files are read as Windows-1252, each with a warning.
    warned = sorted(Path(w.split(":")[0]).name for w in report["warnings"])
    assert warned == ["README.Debian", "legacy.html"], report["warnings"]

    keys, chunks = stored(index)
    root = str(corpus.resolve())
    assert {k.removeprefix(root + "/") for k in keys} == {
        "copyright", "README.Debian", "legacy.html", "changelog.Debian.gz", "NEWS.bz2", "TODO.xz",
        "lighthouse.1.gz", "guide.rst", "lamp.py", "bundle.zip!logs/storm.txt",
        "bundle.zip!inner.tar.gz!keepers.md", "manual.pdf", "message.eml", "message.eml!figures.txt"}
    text = "\n".join(chunk[2] for chunk in chunks)
    for phrase in ["tombée de la nuit", "Café crème", "Brighter lamp", "foghorn", "red and white",
                   "keep ships off the rocks", "Trim the wick", "storm of 1903", "Agnes kept the light",
                   "Climb the stairs slowly", "Polish the lens daily", "rose by a third"]:
        assert phrase in text, phrase

    # A second run reads nothing again, and a file that vanished from an archive goes with it.
    (corpus / "bundle.zip").write_bytes(zip_of({"logs/storm.txt": b"The storm of 1903 broke the lens.\n"}))
    again = json.loads(add(index, "--json", "--exclude", "bomb*", str(corpus)).stdout)
    assert again["documents_added"] == 0 and again["documents_removed"] == 1, again
    assert again["files_unchanged"] == 11 and again["skipped_by_reason"]["excluded (--exclude)"] == 1, again
    assert again["errors"] == [], again


def test_hits_name_their_page(tiny, corpus, tmp_path):
    index = tmp_path / "idx"
    docs = tmp_path / "pdf"
    docs.mkdir()
    shutil.copyfile(corpus / "manual.pdf", docs / "manual.pdf")
    add(index, "--quiet", "--chunk-tokens", "8", "--overlap", "0", str(docs))

    def search(query: str) -> dict:
        out = subprocess.run([str(sieve_bin()), "search", "--index", str(index), "--mode", "bm25", "--json", query],
                             capture_output=True, text=True, check=True).stdout
        return json.loads(out)["hits"][0]

    assert search("daily")["section"] == "page 2"
    assert search("climb")["section"] == "page 1"
    # An index made before chunks knew their pages gets the column when next opened: empty until re-read.
    db = sqlite3.connect(index / "index.sqlite")
    db.execute("ALTER TABLE chunks DROP COLUMN section")
    db.commit()
    db.close()
    assert search("daily")["section"] == ""
    assert json.loads(subprocess.run([str(sieve_bin()), "index", "check", "--index", str(index), "--json"],
                                     capture_output=True, text=True).stdout)["ok"]


def test_files_that_no_longer_exist_leave_the_index(tiny, tmp_path):
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "keep.txt").write_text("The lamp stays lit.\n")
    (docs / "sub" / "gone.txt").write_text("The old tower fell.\n")
    (docs / "box.zip").write_bytes(zip_of({"a.txt": b"first member\n", "b.txt": b"second member\n"}))
    (tmp_path / "docs-sibling.txt").write_text("Outside the folder given.\n")
    index = tmp_path / "idx"
    add(index, "--quiet", str(docs), str(tmp_path / "docs-sibling.txt"))
    (docs / "sub" / "gone.txt").unlink()
    (docs / "box.zip").unlink()
    # --keep-missing keeps them; by default they go, with every document of the archive, and are listed.
    kept = json.loads(add(index, "--json", "--keep-missing", str(docs)).stdout)
    assert kept["files_removed"] == 0 and len(stored(index)[0]) == 5, kept
    result = add(index, "--json", str(docs))
    report = json.loads(result.stdout)
    root = docs.resolve()
    assert report["removed"] == [str(root / "box.zip"), str(root / "sub" / "gone.txt")], report
    assert (report["files_removed"], report["documents_removed"]) == (2, 3), report
    # A file beside the folder whose name starts like it is not below it: it stays.
    assert {Path(k).name for k in stored(index)[0]} == {"keep.txt", "docs-sibling.txt"}
    # The summary line counts them; the next run has nothing to remove.
    assert "skipped, 0 removed)" in add(index, str(docs)).stderr


def test_include_and_exclude_pick_files(tiny, corpus, tmp_path):
    index = tmp_path / "idx"
    report = json.loads(add(index, "--json", "--include", "*.gz", "--include", "*.rst", "--exclude", "bomb*",
                            str(corpus)).stdout)
    assert report["files_by_format"] == {"gzip-compressed file": 2, "reStructuredText": 1}, report
    assert report["skipped_by_reason"] == {"excluded (--exclude)": 1, "not included (--include)": 10}, report


def debian_sample(limit: int, max_bytes: int) -> list[Path]:
    """Every k-th regular file of /usr/share/doc of at most `max_bytes`, in name order: what this machine's
    packages installed (the fast tier keeps to small files: embedding, not reading, is what takes time)."""
    root = Path("/usr/share/doc")
    files = sorted(p for p in root.rglob("*")
                   if p.is_file() and not p.is_symlink() and p.stat().st_size <= max_bytes) if root.is_dir() else []
    step = max(1, len(files) // limit)
    return files[::step][:limit]


def test_real_debian_documentation_is_read(tiny, tmp_path):
    sample = debian_sample(400, 1 << 30) if tier.FULL else debian_sample(60, 6000)
    if len(sample) < 40:
        pytest.skip(f"/usr/share/doc holds only {len(sample)} files here")
    docs = tmp_path / "doc"
    for i, path in enumerate(sample):
        target = docs / f"{i:03d}-{path.parent.name}" / path.name
        target.parent.mkdir(parents=True)
        shutil.copyfile(path, target)
    result = add(tmp_path / "idx", "--json", str(docs), timeout=600)
    report = json.loads(result.stdout)
    assert result.returncode == 0 and report["errors"] == [], report["errors"]
    binary = report["skipped_by_reason"].get("binary file", 0)
    read = sum(report["files_by_format"].values())
    # Images are the only binary files Debian's documentation holds; everything else must be read.
    assert read >= 0.95 * (len(sample) - binary), report
    assert binary <= 0.1 * len(sample), report
