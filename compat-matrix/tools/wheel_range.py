"""A wheel on PyPI read in place: HTTP range requests fetch only the parts of its zip that are
asked for (the central directory, one member), so a table generator reads a few kB of a wheel
that weighs hundreds of MB."""

import io
import urllib.request
import zipfile


class RangeFile(io.RawIOBase):
    """A remote file read by HTTP range requests, for zipfile to seek in."""

    def __init__(self, url):
        self.url = url
        with urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=60) as response:
            self.size = int(response.headers["Content-Length"])
        self.pos = 0

    def seekable(self):
        return True

    def readable(self):
        return True

    def tell(self):
        return self.pos

    def seek(self, offset, whence=0):
        self.pos = {0: offset, 1: self.pos + offset, 2: self.size + offset}[whence]
        return self.pos

    def readinto(self, buffer):
        wanted = min(len(buffer), self.size - self.pos)
        if wanted <= 0:
            return 0
        headers = {"Range": f"bytes={self.pos}-{self.pos + wanted - 1}"}
        with urllib.request.urlopen(urllib.request.Request(self.url, headers=headers), timeout=60) as response:
            # A server that ignores Range answers 200 with the whole file.
            if response.status != 206:
                raise OSError(f"{self.url}: range request answered {response.status}, not 206")
            data = response.read()
        buffer[: len(data)] = data
        self.pos += len(data)
        return len(data)


def remote_wheel(url, buffer_size=1 << 16):
    """The wheel at `url` as a zip archive read by range requests."""
    return zipfile.ZipFile(io.BufferedReader(RangeFile(url), buffer_size=buffer_size))
