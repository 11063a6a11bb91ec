// The link in what a share sheet or the bookmarklet sends: `url`, else the first web address in `text` or `title`. Pure.
import { MAX_URL_LENGTH } from "@mds/shared/api/Requests"

const WEB_ADDRESS = /https?:\/\/[^\s<>"']+/i

/**
 * Share sheets differ: some apps send the link as `url`, many (Android's) put it in `text`, often after a title ("Look
 * at this https://…"). The first http(s) address found, in that order; "" when none is there.
 */
export const sharedLinkOf = (query: Readonly<Record<string, unknown>> | undefined): string => {
  for (const name of ["url", "text", "title"]) {
    const value = query?.[name]
    if (typeof value !== "string") continue
    // A sentence's full stop or closing bracket after the address is not part of it.
    const found = WEB_ADDRESS.exec(value.slice(0, 4 * MAX_URL_LENGTH))?.[0]?.replace(/[.,;:!?)\]]+$/, "")
    if (found !== undefined && found.length <= MAX_URL_LENGTH) return found
  }
  return ""
}
