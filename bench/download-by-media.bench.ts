// Download by media_id against the same download by url, for a page and for HLS and DASH presentations; the requests
// the media server saw for pages and manifests during the downloads by media_id (must be zero).
import { median, note, printTable, relativeTo, type Row } from "./support/Report.ts"
import { api, startBenchStack, waitForJob } from "./support/Stack.ts"

const SAMPLES = 5

const bench = await startBenchStack()
try {
  const { stack, media } = bench
  const { key } = await stack.provisionKey()
  const isPageOrManifest = (path: string) => /\.(html|mpd|m3u8)$/.test(path)

  const download = async (source: { url: string } | { media_id: string }) => {
    const before = media.requests.length
    const started = performance.now()
    const queued = await api(stack.baseUrl, "POST", "/media/download", key, { ...source, format: "video_best" })
    if (queued.status !== 202) throw new Error(`queueing failed: ${queued.text}`)
    const done = await waitForJob(stack.baseUrl, key, queued.json.data.job_id, { intervalMs: 50, timeoutMs: 120_000 })
    const seconds = (performance.now() - started) / 1000
    if (done.json.data.status !== "completed") throw new Error(`the job did not complete: ${done.text}\n${stack.logs()}`)
    return { seconds, pageOrManifestRequests: media.requests.slice(before).filter(isPageOrManifest).length }
  }

  const rows: Array<Row> = []
  for (const [label, url] of [
    ["watch page (JSON-LD → mp4)", media.urls.page],
    ["HLS master + audio rendition", media.urls.hlsAudio],
    ["DASH manifest", media.urls.dash]
  ] as const) {
    const resolved = await api(stack.baseUrl, "POST", "/media/resolve", key, { url })
    if (resolved.status !== 200) throw new Error(`resolve failed: ${resolved.text}`)
    const mediaId: string = resolved.json.data.id
    const byUrl: Array<number> = []
    const byMedia: Array<number> = []
    let stray = 0
    for (let i = 0; i < SAMPLES; i++) {
      note(`${label}: sample ${i + 1}/${SAMPLES}, by url then by media_id`)
      byUrl.push((await download({ url })).seconds)
      const m = await download({ media_id: mediaId })
      byMedia.push(m.seconds)
      stray += m.pageOrManifestRequests
    }
    note(`${label}: by url ${byUrl.map((s) => s.toFixed(2)).join(", ")} s; by media_id ${byMedia.map((s) => s.toFixed(2)).join(", ")} s`)
    rows.push(
      relativeTo(
        `${label}: POST by media_id to completed`,
        median(byMedia),
        "s",
        { label: "the same by url", value: median(byUrl) },
        {
          bound: "<",
          times: 1,
          of: "by url"
        }
      ),
      {
        metric: `${label}: page and manifest requests during ${SAMPLES} downloads by media_id`,
        value: stray,
        unit: "requests",
        reference: null,
        target: "0",
        met: stray === 0
      }
    )
  }
  printTable(`download by media_id against by url (median of ${SAMPLES}, interleaved; video_best)`, rows)
} finally {
  await bench.close()
}
