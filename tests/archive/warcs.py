"""Build small WARC files in tests with warcio's writer."""

from __future__ import annotations

import io

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter


def page(n: int) -> bytes:
    return (
        f"<html><head><title>Story {n}</title></head><body><p>The council voted on "
        f"story number {n} today.</p></body></html>"
    ).encode()


class Builder:
    def __init__(self, gzip: bool = True) -> None:
        self.buf = io.BytesIO()
        self.writer = WARCWriter(self.buf, gzip=gzip)
        self.offsets: list[int] = []

    def _write(self, rec) -> None:
        self.offsets.append(self.buf.tell())
        self.writer.write_record(rec)

    def response(self, uri: str, body: bytes, ctype: str = "text/html; charset=utf-8",
                 status: str = "200 OK", date: str = "2020-05-01T10:00:00Z",
                 extra_http: list[tuple[str, str]] | None = None) -> Builder:
        http = StatusAndHeaders(status, [("Content-Type", ctype)] + (extra_http or []),
                                protocol="HTTP/1.1")
        rec = self.writer.create_warc_record(
            uri, "response", payload=io.BytesIO(body), length=len(body), http_headers=http,
            warc_headers_dict={"WARC-Date": date},
        )
        self._write(rec)
        return self

    def request(self, uri: str) -> Builder:
        http = StatusAndHeaders("GET / HTTP/1.1", [("Host", "x.test")], is_http_request=True)
        rec = self.writer.create_warc_record(uri, "request", payload=io.BytesIO(b""), length=0,
                                             http_headers=http)
        self._write(rec)
        return self

    def resource(self, uri: str, body: bytes, ctype: str = "text/html") -> Builder:
        rec = self.writer.create_warc_record(uri, "resource", payload=io.BytesIO(body),
                                             length=len(body), warc_content_type=ctype)
        self._write(rec)
        return self

    def revisit(self, uri: str, digest: str, refers_uri: str, refers_date: str,
                date: str = "2021-01-01T00:00:00Z") -> Builder:
        http = StatusAndHeaders("304 Not Modified", [("Content-Type", "text/html")],
                                protocol="HTTP/1.1")
        rec = self.writer.create_revisit_record(uri, digest, refers_uri, refers_date,
                                                http_headers=http,
                                                warc_headers_dict={"WARC-Date": date})
        self._write(rec)
        return self

    def bytes(self) -> bytes:
        return self.buf.getvalue()
