from collections.abc import Iterator
from typing import Any

from warcio.bufferedreaders import BufferedReader, _Readable
from warcio.recordloader import ArcWarcRecord, ArcWarcRecordLoader

class ArchiveIterator(Iterator[ArcWarcRecord]):
    fh: Any  # the _Readable given (wrapped to be tellable when it is not)
    loader: ArcWarcRecordLoader
    reader: BufferedReader
    known_format: str | None
    offset: int
    err_count: int
    def __init__(self, fileobj: _Readable, no_record_parse: bool = False, verify_http: bool = False,
                 arc2warc: bool = False, ensure_http_headers: bool = False,
                 block_size: int = ..., check_digests: bool = False) -> None: ...
    def __iter__(self) -> Iterator[ArcWarcRecord]: ...
    def __next__(self) -> ArcWarcRecord: ...
    def close(self) -> None: ...
    def _consume_blanklines(self) -> tuple[bytes | None, int]: ...
