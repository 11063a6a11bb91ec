// The entries a check found: keyed in the archive as yt-dlp keys its download archive, dated when the playlist says.
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { MediaEvent, type MediaResolved } from "../media/MediaEvent.ts"
import { foundEntriesOf } from "./FoundEntries.ts"
import { planCheck } from "./SubscriptionCheckPlan.ts"
import { SubscriptionDecider } from "./SubscriptionDecider.ts"
import { foldEvents } from "../Decider.ts"
import type { Subscription } from "./SubscriptionState.ts"
import { parseFormatId } from "../media/FormatId.ts"

const T0 = 1_767_225_600_000

/** A playlist as the extractor records it; entries without the newer fields are as events written before them. */
const playlist = (platform: string, entries: ReadonlyArray<Record<string, unknown>>): MediaResolved =>
  Schema.decodeUnknownSync(MediaEvent)({
    _tag: "MediaResolved",
    v: 1,
    mediaId: "med_q2w3e4r5t6y7u2i3o4p5a6s7",
    url: "https://example.com/list",
    webpageUrl: "https://example.com/list",
    platform,
    type: "playlist",
    title: "List",
    thumbnail: "",
    duration: 0,
    author: { name: "", username: "" },
    formats: [],
    resolvedAt: T0,
    expiresAt: T0 + 3_600_000,
    entries
  }) as MediaResolved

describe("foundEntriesOf", () => {
  it("keys an entry by its extractor (lower-cased) and id, as yt-dlp's archive line; by its URL when the playlist names neither", () => {
    const found = foundEntriesOf(
      playlist("youtube", [
        {
          id: "ent_a",
          url: "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
          title: "A",
          duration: 212,
          extractorKey: "Youtube",
          extractorId: "dQw4w9WgXcQ",
          publishedAt: T0
        },
        { id: "ent_b", url: "https://feeds.example.com/b.mp3", title: "B", duration: null }
      ])
    )
    expect(found).toEqual([
      {
        archiveKey: "youtube dQw4w9WgXcQ",
        formerArchiveKey: "youtube ent_a",
        entryId: "ent_a",
        url: "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
        title: "A",
        durationSeconds: 212,
        publishedAt: T0
      },
      {
        archiveKey: "url https://feeds.example.com/b.mp3",
        formerArchiveKey: "youtube ent_b",
        entryId: "ent_b",
        url: "https://feeds.example.com/b.mp3",
        title: "B",
        durationSeconds: null,
        publishedAt: null
      }
    ])
  })

  it("a subscription's published_after takes effect on the dates the playlist carries", () => {
    const subscription = foldEvents(SubscriptionDecider, [
      {
        _tag: "SubscriptionCreated",
        v: 1,
        subscriptionId: "sub_a",
        projectId: "prj_a",
        url: "https://example.com/list",
        platform: "generic",
        format: parseFormatId("audio_mp3"),
        checkEveryMs: 3_600_000,
        filters: { publishedAfter: T0 },
        backfill: 3,
        createdAt: T0
      }
    ]) as Subscription
    const found = foundEntriesOf(
      playlist("generic", [
        { id: "ent_new", url: "https://a.example/new.mp3", title: "New", duration: 60, publishedAt: T0 + 60_000 },
        { id: "ent_old", url: "https://a.example/old.mp3", title: "Old", duration: 60, publishedAt: T0 - 86_400_000 },
        { id: "ent_undated", url: "https://a.example/undated.mp3", title: "Undated", duration: 60 }
      ])
    )
    const plan = planCheck(subscription, found)
    expect(plan.candidates.map((entry) => entry.title)).toEqual(["New", "Undated"])
    expect(plan.filtered).toBe(1)
  })
})
