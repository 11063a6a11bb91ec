// Which platform a project's cookies for a URL belong to: the one rule that upload, every run's lookup and GET /platforms share.
import { Result } from "effect"
import { classifyUrl } from "./classifyUrl.ts"
import { CURATED_PLATFORMS, GENERIC_PLATFORM_ID } from "./PlatformTable.ts"

/**
 * Every platform a URL can be classified as by its host: the curated platforms and `generic` (every other host).
 * Cookies are kept under these ids only: a platform derived from an extractor has no host of its own, so no URL
 * could ever find cookies stored under its id.
 */
export const COOKIE_PLATFORM_IDS: ReadonlyArray<string> = [...CURATED_PLATFORMS.map((entry) => entry.id), GENERIC_PLATFORM_ID]

export const isCookiePlatform = (platformId: string): boolean => COOKIE_PLATFORM_IDS.includes(platformId)

/**
 * The cookies a yt-dlp run of this URL uses: the platform of the URL's host. Not the extractor that handled the
 * media: a resolve needs the cookies before any extractor has run, and its download must find the same file.
 * None for a URL that no platform takes (not a URL, a short link, a blocked host).
 */
export const cookiePlatformOfUrl = (raw: string): string | null => {
  if (!URL.canParse(raw)) return null
  const platform = classifyUrl(new URL(raw))
  return Result.isSuccess(platform) ? platform.success.id : null
}
