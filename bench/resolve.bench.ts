// Resolve: POST /v1/media/resolve against raw `yt-dlp -J` on the same local page; the repeat from cache; single-flight.
import { execFile } from "node:child_process"
import { promisify } from "node:util"
import { median, note, printTable } from "./support/Report.ts"
import { api, startBenchStack } from "./support/Stack.ts"

const run = promisify(execFile)
const SAMPLES = 7
const CACHED_SAMPLES = 50
const CONCURRENT = 50

const timed = async <A>(f: () => Promise<A>): Promise<[number, A]> => {
  const started = performance.now()
  const value = await f()
  return [performance.now() - started, value]
}

const bench = await startBenchStack()
try {
  const { stack, media } = bench
  const { key } = await stack.provisionKey()
  const ytDlp = stack.env["YT_DLP_PATH"] ?? "yt-dlp"
  // A distinct query string per sample: the media server ignores it, the resolve cache does not.
  const pageUrl = (tag: string) => `${media.urls.page}?sample=${tag}`
  const resolve = async (url: string) => {
    const response = await api(stack.baseUrl, "POST", "/media/resolve", key, { url })
    if (response.status !== 200) throw new Error(`resolve ${url}: ${response.text}\n${stack.logs()}`)
    return response.json.data.id as string
  }

  note("warming up (one raw run, one service resolve)")
  await run(ytDlp, ["-J", pageUrl("warm-raw")])
  await resolve(pageUrl("warm-service"))

  // Interleaved, so both see the same machine load.
  const raw: Array<number> = []
  const service: Array<number> = []
  for (let i = 0; i < SAMPLES; i++) {
    note(`sample ${i + 1}/${SAMPLES}`)
    raw.push((await timed(() => run(ytDlp, ["-J", pageUrl(`raw-${i}`)])))[0])
    service.push((await timed(() => resolve(pageUrl(`service-${i}`))))[0])
  }

  note(`repeat resolves of one URL (${CACHED_SAMPLES})`)
  const repeated = pageUrl("service-0")
  const cached: Array<number> = []
  const ids = new Set<string>()
  for (let i = 0; i < CACHED_SAMPLES; i++) {
    const [ms, id] = await timed(() => resolve(repeated))
    cached.push(ms)
    ids.add(id)
  }

  note(`${CONCURRENT} concurrent resolves of one new URL`)
  const fresh = pageUrl("single-flight")
  const pagesBefore = media.requests.filter((path) => path === "/watch/clip.html").length
  const answers = await Promise.all(Array.from({ length: CONCURRENT }, () => resolve(fresh)))
  const pageFetches = media.requests.filter((path) => path === "/watch/clip.html").length - pagesBefore
  const extractions = new Set(answers).size

  const ratio = median(service) / median(raw)
  printTable(`resolve: a local watch page (median of ${SAMPLES}, interleaved)`, [
    {
      metric: "resolve, not cached (p50)",
      value: median(service),
      unit: "ms",
      reference: { label: "raw yt-dlp -J", value: median(raw) },
      target: "≤ 1.05× raw",
      met: ratio <= 1.05
    },
    {
      metric: `repeat within the media lifetime (p50 of ${CACHED_SAMPLES})`,
      value: median(cached),
      unit: "ms",
      reference: null,
      target: "≤ 5 ms",
      met: median(cached) <= 5 && ids.size === 1
    },
    {
      metric: `${CONCURRENT} concurrent resolves of one URL: extractions (distinct media ids)`,
      value: extractions,
      unit: `(page fetched ${pageFetches}×)`,
      reference: null,
      target: "1",
      met: extractions === 1
    }
  ])
} finally {
  await bench.close()
}
