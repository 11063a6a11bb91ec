// End to end: a download delivered into an S3 destination (moto) by its path template with sidecars, the job
// completed only once delivered; a bad template and a foreign destination refused when the request is made.
import { Client } from "minio"
import { afterAll, describe, expect, it } from "vitest"
import { startMotoServer } from "../support/MotoServer.ts"
import { freePort } from "../support/NatsServer.ts"
import { apiRequest } from "./ApiClient.ts"
import { pollJobUntilFinished } from "./JobPolling.ts"
import { useMediaStack } from "./MediaStack.ts"

const BUCKET = "mds-e2e-delivery"
const moto = await startMotoServer()
afterAll(() => moto.close())
const motoUrl = new URL(moto.endpoint)
const s3 = new Client({ endPoint: motoUrl.hostname, port: Number(motoUrl.port), useSSL: false, accessKey: "a", secretKey: "b" })
await s3.makeBucket(BUCKET, "us-east-1")

/** A loopback port nobody listens on: an S3 endpoint that never answers. */
const closedPort = await freePort()
const e2e = useMediaStack({
  keys: 2,
  stack: (media) => ({
    env: { EGRESS_ALLOW: [media.hostPort, motoUrl.host, `127.0.0.1:${closedPort}`].join(","), DELIVERY_RETRY_DELAYS: "1,1" }
  })
})

const objectsUnder = async (prefix: string): Promise<ReadonlyArray<string>> => {
  const names: Array<string> = []
  for await (const item of s3.listObjectsV2(BUCKET, prefix, true)) if (item.name !== undefined) names.push(item.name)
  return names.sort()
}

const createDestination = async (key: string, endpoint = moto.endpoint) => {
  const created = await apiRequest(e2e.stack.baseUrl, "POST", "/destinations", {
    key,
    json: {
      name: "Library",
      type: "s3",
      endpoint,
      bucket: BUCKET,
      region: "us-east-1",
      prefix: "library",
      access_key_id: "AKIADELIVERYE2E00001",
      secret_access_key: "delivery-e2e-secret-0123456789"
    }
  })
  expect(created.status, e2e.context(created)).toBe(201)
  return created.body.data.id as string
}

const download = (json: Record<string, unknown>, key = e2e.key) => apiRequest(e2e.stack.baseUrl, "POST", "/media/download", { key, json })

describe("delivery into a destination", () => {
  it("delivers the file and its sidecars under the rendered path, and completes the job once delivered", async () => {
    const destinationId = await createDestination(e2e.key)
    const queued = await download({
      url: e2e.media.urls.mp4,
      format: "video_best",
      destination: { id: destinationId, path: "videos/{title} [{id}].{ext}" },
      sidecars: ["nfo", "info_json"]
    })
    expect(queued.status, e2e.context(queued)).toBe(202)
    const { job } = await pollJobUntilFinished(e2e.stack.baseUrl, e2e.key, queued.body.data.job_id, { logs: e2e.stack.logs })
    expect(job.status, `${JSON.stringify(job)}\n${e2e.stack.logs()}`).toBe("completed")
    expect(job.delivery).toMatchObject({ destination_id: destinationId, status: "delivered", attempts: 0 })
    expect(job.delivery.path).toMatch(/^videos\/.+ \[.+\]\.mp4$/)
    const stem = job.delivery.path.replace(/\.mp4$/, "")
    expect(await objectsUnder("library/videos/")).toEqual(
      [`library/${stem}.info.json`, `library/${job.delivery.path}`, `library/${stem}.nfo`].sort()
    )
    const nfo = await s3.getObject(BUCKET, `library/${stem}.nfo`)
    let text = ""
    for await (const chunk of nfo) text += String(chunk)
    expect(text).toContain("<episodedetails>")
  })

  it("an endpoint that never answers: retried, then the job fails destination_unreachable and keeps its download link", async () => {
    const destinationId = await createDestination(e2e.key, `http://127.0.0.1:${closedPort}`)
    const queued = await download({ url: e2e.media.urls.mp4, format: "video_best", destination: { id: destinationId } })
    expect(queued.status, e2e.context(queued)).toBe(202)
    const { job } = await pollJobUntilFinished(e2e.stack.baseUrl, e2e.key, queued.body.data.job_id, { logs: e2e.stack.logs })
    expect(job.status, `${JSON.stringify(job)}\n${e2e.stack.logs()}`).toBe("failed")
    expect(job.error.code).toBe("destination_unreachable")
    expect(job.delivery).toMatchObject({ destination_id: destinationId, status: "failed", attempts: 3 })
    expect(job.result.download_url).toMatch(/^http/)
  })

  it("refuses a bad template (422 invalid_path_template) and another project's destination (404 destination_not_found)", async () => {
    const destinationId = await createDestination(e2e.key)
    const bad = await download({
      url: e2e.media.urls.mp4,
      format: "video_best",
      destination: { id: destinationId, path: "../{nope}.{ext}" }
    })
    expect(bad.status, e2e.context(bad)).toBe(422)
    expect(bad.body.error.code).toBe("invalid_path_template")
    const foreign = await download({ url: e2e.media.urls.mp4, format: "video_best", destination: { id: destinationId } }, e2e.keyAt(1))
    expect(foreign.status, e2e.context(foreign)).toBe(404)
    expect(foreign.body.error.code).toBe("destination_not_found")
  })
})
