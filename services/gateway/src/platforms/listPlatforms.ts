// GET /v1/platforms: every working extractor of the installed yt-dlp but YouTube's (latest published catalog), with health.
import { catalogExtractors, ExtractorCatalogPublished } from "@mds/shared/domain/platform/CatalogEvent"
import { availablePlatforms } from "@mds/shared/domain/platform/availablePlatforms"
import { isCookiePlatform } from "@mds/shared/domain/platform/cookiePlatform"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { EXTRACTOR_CATALOG_SUBJECT } from "@mds/shared/nats/Subjects"
import type { Platform } from "@mds/shared/api/Responses"
import { Effect, Option } from "effect"
import { ServiceUnavailable } from "../http/GatewayErrors.ts"
import { json } from "../http/Route.ts"
import { PlatformHealthBoard } from "./PlatformHealthBoard.ts"

/** Every extractor today is yt-dlp; the field leaves room for others. */
const SOURCE = "yt-dlp"

export const listPlatforms = Effect.fn("listPlatforms")(function* () {
  const store = yield* EventStore
  const catalog = yield* store.readLast(ExtractorCatalogPublished, EXTRACTOR_CATALOG_SUBJECT)
  if (Option.isNone(catalog)) {
    return yield* new ServiceUnavailable({ message: "No extractor has published its platform catalog yet; retry shortly." })
  }
  const board = yield* PlatformHealthBoard
  const platforms = yield* Effect.forEach(availablePlatforms(catalogExtractors(catalog.value.event)), (entry) =>
    Effect.map(
      board.view(entry.id),
      (health): Platform => ({
        id: entry.id,
        name: entry.name,
        capabilities: entry.capabilities,
        source: SOURCE,
        live: entry.live === true,
        cookies: isCookiePlatform(entry.id),
        health: {
          status: health.status,
          success_rate: health.successRate,
          sample_size: health.sampleSize,
          paused_until: health.pausedUntil === null ? null : new Date(health.pausedUntil).toISOString()
        }
      })
    )
  )
  // The specification fixes five minutes; a paused platform also answers 503 platform_paused right away.
  return json(200, platforms, { "cache-control": "public, max-age=300" })
})
