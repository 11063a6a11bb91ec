// The environment a confined tool gets: a short allow-list of the extractor's variables and the egress proxy, nothing else.
import { join } from "node:path"

/**
 * Passed through because tools need them to run at all (PATH, HOME, locale, time zone, temp directory) or to trust a
 * deployment's certificate authorities. Everything else stays behind: storage credentials and secrets, and above all
 * every `*_proxy`/`no_proxy` variable (ffmpeg obeys `no_proxy` over `-http_proxy`, so a platform's NO_PROXY would
 * send a manifest's private segments around the proxy).
 */
const PASSED_THROUGH = new Set([
  "PATH",
  "HOME",
  "LANG",
  "LANGUAGE",
  "TZ",
  "TMPDIR",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "REQUESTS_CA_BUNDLE",
  "CURL_CA_BUNDLE"
])

const passedThrough = (name: string) => PASSED_THROUGH.has(name) || name.startsWith("LC_")

/**
 * A directory whose `curl_cffi` package fails to import: first on a python run's path, it keeps curl_cffi (browser
 * impersonation, and asyncio with it) out of a yt-dlp run that impersonates nothing, which yt-dlp takes as "not
 * installed". About 50 ms of CPU of each start.
 */
export const WITHOUT_CURL_CFFI = join(import.meta.dirname, "without-curl-cffi")

/**
 * `proxyUrl` (when the run may reach the network) becomes the only proxy setting, under both spellings tools read.
 * `withoutImpersonation`: PYTHONPATH keeps curl_cffi out (WITHOUT_CURL_CFFI); an inherited PYTHONPATH never passes.
 */
export const childEnvironment = (
  inherited: Readonly<Record<string, string | undefined>>,
  proxyUrl: string | null,
  withoutImpersonation = false
): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(inherited)) {
    if (value !== undefined && passedThrough(name)) env[name] = value
  }
  if (proxyUrl !== null) {
    for (const name of ["http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY"]) env[name] = proxyUrl
  }
  if (withoutImpersonation) env["PYTHONPATH"] = WITHOUT_CURL_CFFI
  return env
}
