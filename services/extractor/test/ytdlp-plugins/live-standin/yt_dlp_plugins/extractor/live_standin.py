# A stand-in for a platform's scheduled stream, for tests only (yt-dlp --plugin-dirs services/extractor/test/ytdlp-plugins:
# each folder there holds a yt_dlp_plugins package). The test keeps the stream's state in
# /tmp/mds-livestandin/<id>.json ({"live", "release", "hls"}): is_upcoming with its release_timestamp until the test
# flips it live, then is_live with the HLS stream it names.
import json
import os

from yt_dlp.extractor.common import InfoExtractor
from yt_dlp.utils import ExtractorError

STATE_DIR = '/tmp/mds-livestandin'


class LiveStandInIE(InfoExtractor):
    _VALID_URL = r'https?://127\.0\.0\.1:\d+/standin-live/(?P<id>[a-z0-9]+)'
    IE_NAME = 'livestandin'

    def _real_extract(self, url):
        video_id = self._match_id(url)
        try:
            with open(os.path.join(STATE_DIR, f'{video_id}.json')) as file:
                state = json.load(file)
        except OSError:
            raise ExtractorError('no such stand-in stream', expected=True)
        info = {'id': video_id, 'title': f'Stand-in stream {video_id}', 'uploader': 'stand-in'}
        if not state.get('live'):
            return {**info, 'live_status': 'is_upcoming', 'release_timestamp': state['release'], 'formats': []}
        formats = self._extract_m3u8_formats(state['hls'], video_id, 'mp4', live=True)
        return {**info, 'live_status': 'is_live', 'formats': formats}
