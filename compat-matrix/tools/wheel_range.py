"""A wheel on PyPI read in place: HTTP range requests fetch only the parts of its zip that are
asked for (the central directory, one member, or every member a generator wants, fetched ahead
in few requests), so a table generator reads a few kB or MB of a wheel that weighs hundreds."""

import io
import urllib.request
import zipfile


# Members closer than this share one request when fetched ahead.
RANGE_GAP = 1 << 20


class RangeFile(io.RawIOBase):
    """A remote file read by HTTP range requests, for zipfile to seek in. Spans fetched ahead
    with `prefetch` are served from memory; any other read is a request of its own."""

    def __init__(self, url, size=None):
        self.url = url
        if size is None:
            with urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=60) as response:
                size = int(response.headers["Content-Length"])
        self.size = size
        self.pos = 0
        self.spans = []

    def seekable(self):
        return True

    def readable(self):
        return True

    def tell(self):
        return self.pos

    def seek(self, offset, whence=0):
        self.pos = {0: offset, 1: self.pos + offset, 2: self.size + offset}[whence]
        return self.pos

    def fetch(self, start, end):
        headers = {"Range": f"bytes={start}-{end - 1}"}
        with urllib.request.urlopen(urllib.request.Request(self.url, headers=headers), timeout=300) as response:
            # A server that ignores Range answers 200 with the whole file.
            if response.status != 206:
                raise OSError(f"{self.url}: range request answered {response.status}, not 206")
            return response.read()

    def prefetch(self, ranges):
        """Fetches the byte ranges `[start, end)` ahead, neighbours merged."""
        merged = []
        for start, end in sorted(ranges):
            if merged and start - merged[-1][1] < RANGE_GAP:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        for start, end in merged:
            end = min(end, self.size)
            self.spans.append((start, end, self.fetch(start, end)))

    def readinto(self, buffer):
        wanted = min(len(buffer), self.size - self.pos)
        if wanted <= 0:
            return 0
        start, end = self.pos, self.pos + wanted
        # A read that begins in a span takes what the span holds of it: the buffered reader asks
        # for 64 KiB at a time, which often runs past a span's end.
        data = next((blob[start - low : min(end, high) - low] for low, high, blob in self.spans if low <= start < high), None)
        if data is None:
            data = self.fetch(start, end)
        buffer[: len(data)] = data
        self.pos += len(data)
        return len(data)


def remote_wheel(url, buffer_size=1 << 16, size=None, ahead=None):
    """The wheel at `url` as a zip archive read by range requests; the members for which
    `ahead(name)` holds are fetched ahead, in few requests."""
    remote = RangeFile(url, size)
    archive = zipfile.ZipFile(io.BufferedReader(remote, buffer_size=buffer_size))
    if ahead is not None:
        # A local header is 30 bytes, the name and an extra field (1 KiB is ample in practice).
        remote.prefetch(
            (info.header_offset, info.header_offset + 30 + len(info.filename.encode()) + 1024 + info.compress_size)
            for info in archive.infolist()
            if ahead(info.filename)
        )
    return archive
