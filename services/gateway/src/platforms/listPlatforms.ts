// GET /v1/platforms: the curated platforms the installed yt-dlp can extract, from the latest published catalog.
import { ExtractorCatalogPublished } from "@mds/shared/domain/platform/CatalogEvent"
import { availablePlatforms } from "@mds/shared/domain/platform/availablePlatforms"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { EXTRACTOR_CATALOG_SUBJECT } from "@mds/shared/eventstore/Subjects"
import { Effect, Option } from "effect"
import { ServiceUnavailable } from "../http/GatewayErrors.ts"
import { json } from "../http/Route.ts"

/** Every extractor today is yt-dlp; the field leaves room for others. */
const SOURCE = "yt-dlp"

export const listPlatforms = Effect.fn("listPlatforms")(function*() {
  const store = yield* EventStore
  const catalog = yield* store.readLast(ExtractorCatalogPublished, EXTRACTOR_CATALOG_SUBJECT)
  if (Option.isNone(catalog)) {
    return yield* new ServiceUnavailable({ message: "No extractor has published its platform catalog yet; retry shortly." })
  }
  const platforms = availablePlatforms(catalog.value.event.extractors).map((entry) => ({
    id: entry.id,
    name: entry.name,
    capabilities: entry.capabilities,
    source: SOURCE
  }))
  return json(200, platforms, { "cache-control": "public, max-age=300" })
})
