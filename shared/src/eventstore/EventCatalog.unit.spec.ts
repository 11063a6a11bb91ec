import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import { describe, expect, it } from "vitest"
import { CATALOG_END, CATALOG_START, EVENT_CATALOG, renderEventCatalog, withEventCatalog } from "./EventCatalog.ts"

const docs = readFileSync(resolve(import.meta.dirname, "../../../docs/events.md"), "utf8")

describe("event catalogue in docs/events.md", () => {
  it("is exactly what the schemas generate (run `npm run docs:events` after changing an event)", () => {
    expect(withEventCatalog(docs)).toBe(docs)
  })

  it("lists every event type of every subject with its JSON Schema", () => {
    const block = renderEventCatalog()
    for (const tag of [
      "JobQueued",
      "JobCompleted",
      "SlotClaimed",
      "MediaResolved",
      "KeyRevoked",
      "ExtractorCatalogPublished",
      "DownloadMedia",
      "ResolveRejected"
    ]) {
      expect(block).toContain(`\`${tag}\``)
    }
    expect(block.match(/"\$schema": "https:\/\/json-schema.org\/draft\/2020-12\/schema"/g)?.length).toBe(EVENT_CATALOG.length)
  })

  it("refuses a document without its markers instead of appending somewhere", () => {
    expect(() => withEventCatalog("# no markers")).toThrow()
    expect(withEventCatalog(`a\n${CATALOG_START}\nold\n${CATALOG_END}\nb`, "NEW")).toBe("a\nNEW\nb")
  })
})
