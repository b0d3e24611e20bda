from typing import Any, ClassVar

from warcio.bufferedreaders import BufferedReader
from warcio.limitreader import LimitReader
from warcio.statusandheaders import StatusAndHeaders

class ArcWarcRecord:
    format: str
    rec_type: str
    rec_headers: StatusAndHeaders
    # The record's bytes: a LimitReader over the archive's reader (the reader itself when
    # the record gives no length).
    raw_stream: LimitReader | BufferedReader
    http_headers: StatusAndHeaders | None
    content_type: str | None
    length: int | None
    # (format, rec_type, rec_headers, raw_stream, http_headers, content_type, length)
    def __init__(self, *args: Any, **kwargs: Any) -> None: ...
    def content_stream(self) -> LimitReader | BufferedReader: ...

class ArcWarcRecordLoader:
    HTTP_RECORDS: ClassVar[tuple[str, ...]]
    def __init__(self, verify_http: bool = True, arc2warc: bool = True) -> None: ...
    def load_http_headers(self, rec_type: str, uri: str | None, stream: LimitReader | BufferedReader,
                          length: int | None) -> StatusAndHeaders | None: ...
    def _ensure_target_uri_format(self, rec_headers: StatusAndHeaders) -> str | None: ...
