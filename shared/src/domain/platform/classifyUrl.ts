// Decides which platform a client URL belongs to, or why it is not supported.
import { Result } from "effect"
import { UnsupportedPlatform } from "../DomainErrors.ts"
import { BLOCKED_HOSTS, CURATED_PLATFORMS, GENERIC_PLATFORM, type PlatformEntry, SHORT_LINK_HOSTS } from "./PlatformTable.ts"

const hostMatches = (host: string, pattern: string) => host === pattern || host.endsWith(`.${pattern}`)

const normalizeHost = (hostname: string) => hostname.toLowerCase().replace(/\.$/, "")

/**
 * Classifies a URL already known to parse as http(s). Short links are checked before blocked hosts so
 * that youtu.be gets the more helpful "send the canonical link" message.
 */
export const classifyUrl = (url: URL): Result.Result<PlatformEntry, UnsupportedPlatform> => {
  const host = normalizeHost(url.hostname)
  if (SHORT_LINK_HOSTS.some((pattern) => host === pattern)) {
    return Result.fail(
      new UnsupportedPlatform({
        url: url.href,
        message: `Shortened links (${host}) are not supported: send the canonical link of the media instead.`
      })
    )
  }
  if (BLOCKED_HOSTS.some((pattern) => hostMatches(host, pattern))) {
    return Result.fail(new UnsupportedPlatform({ url: url.href, message: `${host} is not a supported platform.` }))
  }
  const curated = CURATED_PLATFORMS.find((entry) => entry.hosts.some((pattern) => hostMatches(host, pattern)))
  return Result.succeed(curated ?? GENERIC_PLATFORM)
}
