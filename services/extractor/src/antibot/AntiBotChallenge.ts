// Recognises an anti-bot wall (Cloudflare's challenge and the like) in what a failed yt-dlp run printed. Pure.
import type { YtDlpFlags } from "../ytdlp/YtDlpFlags.ts"

/**
 * yt-dlp's own verdicts: the generic extractor names Cloudflare's challenge (a 403 with `cf-mitigated: challenge`)
 * and suggests `generic:impersonate`; site extractors say a request "requires browser impersonation".
 */
const CHALLENGE = /anti-bot challenge|requires browser impersonation|generic:impersonate|Attention Required! \| Cloudflare|cf-mitigated/i

export const isAntiBotChallenge = (stderr: string): boolean => CHALLENGE.test(stderr)

/**
 * Impersonates a browser's TLS and HTTP fingerprint (curl_cffi): `--impersonate` for every request a site extractor
 * makes, and the generic extractor's own switch, which it keeps off unless asked.
 */
export const impersonationFlags = (target: string): YtDlpFlags => ({
  impersonate: target,
  extractorArgs: `generic:impersonate=${target}`
})
