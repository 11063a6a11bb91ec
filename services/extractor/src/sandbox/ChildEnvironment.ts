// The environment a confined tool gets: a short allow-list of the extractor's variables and the egress proxy, nothing else.

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

/** `proxyUrl` (when the run may reach the network) becomes the only proxy setting, under both spellings tools read. */
export const childEnvironment = (
  inherited: Readonly<Record<string, string | undefined>>,
  proxyUrl: string | null
): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(inherited)) {
    if (value !== undefined && passedThrough(name)) env[name] = value
  }
  if (proxyUrl !== null) {
    for (const name of ["http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY"]) env[name] = proxyUrl
  }
  return env
}
