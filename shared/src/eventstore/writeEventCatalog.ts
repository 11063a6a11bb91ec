// `npm run docs:events`: rewrites the generated event catalogue in docs/events.md from the Effect schemas.
import { readFileSync, writeFileSync } from "node:fs"
import { resolve } from "node:path"
import { withEventCatalog } from "./EventCatalog.ts"

const path = resolve(import.meta.dirname, "../../../docs/events.md")
writeFileSync(path, withEventCatalog(readFileSync(path, "utf8")))
process.stderr.write(`wrote the event catalogue into ${path}\n`)
