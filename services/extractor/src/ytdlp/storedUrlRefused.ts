// Tells from a failed yt-dlp run whether the media URLs it was given were refused: expired or signed for another time.

/**
 * Signed platform URLs stop working after some hours: the CDN answers 403 or 410, or names the expiry. Only a run
 * from stored info is judged this way; the remedy is a fresh extraction from the page, which signs new URLs.
 */
const REFUSED = [
  /HTTP Error (403|410)/i,
  /returned error: (403|410)/i,
  /\b(signature|token|link|url) (has )?expired\b/i,
  /\bexpired (signature|token|link|url)\b/i
]

export const storedUrlRefused = (stderr: string): boolean => REFUSED.some((pattern) => pattern.test(stderr))
