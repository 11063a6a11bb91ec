// Extension: the entries a check found, from the playlist the extractor resolved: how the archive knows each, and its dates.
import type { MediaResolved } from "../media/MediaEvent.ts"
import { archiveKeyOf, formerArchiveKeyOf } from "./ArchiveKey.ts"
import type { FoundEntry } from "./SubscriptionCheckPlan.ts"

/** Each entry keyed by its extractor and id (or its URL), with when it was published if the playlist says. */
export const foundEntriesOf = (playlist: MediaResolved): ReadonlyArray<FoundEntry> =>
  (playlist.entries ?? []).map((entry) => ({
    archiveKey: archiveKeyOf({ extractor: entry.extractorKey ?? null, id: entry.extractorId ?? null, url: entry.url }),
    formerArchiveKey: formerArchiveKeyOf(playlist.platform, entry.id),
    entryId: entry.id,
    url: entry.url,
    title: entry.title,
    durationSeconds: entry.duration,
    publishedAt: entry.publishedAt ?? null
  }))
