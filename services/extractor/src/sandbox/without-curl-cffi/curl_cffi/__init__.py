# Put first on PYTHONPATH for yt-dlp runs that impersonate nothing: yt-dlp then finds curl_cffi "not installed" and
# skips importing it (and asyncio with it), about 50 ms of CPU of every start. A run that impersonates never gets it.
raise ImportError("curl_cffi is kept out of this run: it impersonates no browser")
