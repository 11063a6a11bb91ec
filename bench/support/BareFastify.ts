// The reference server of the job-read benchmark: a bare fastify route answering the same JSON as GET /v1/jobs/:jobId.
// Run as its own process (`node bench/support/BareFastify.ts`) with BARE_BODY (the JSON) and BARE_PORT; prints "ready".
import Fastify from "fastify"

const body: unknown = JSON.parse(process.env["BARE_BODY"] ?? "{}")
const port = Number(process.env["BARE_PORT"] ?? "0")

const app = Fastify({ logger: false })
app.get("/v1/jobs/:jobId", async () => body)
await app.listen({ host: "127.0.0.1", port })
process.stdout.write("ready\n")
process.once("SIGTERM", () => void app.close().then(() => process.exit(0)))
