// A local HTTP server on 127.0.0.1 serving ffmpeg-made media (files, an HTML watch page, HLS), for extractor and end-to-end tests.
import { createHmac, randomBytes } from "node:crypto"
import { readFile } from "node:fs/promises"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { extname, join, normalize } from "node:path"
import { ensureMediaFixtures, ensureStreamingFixtures, fixtureFacts, type MediaFixtures, streamingFacts } from "./MediaFixtures.ts"

export interface MediaServer {
  readonly origin: string
  readonly hostPort: string
  readonly urls: {
    readonly mp4: string
    readonly silentMp4: string
    readonly audio: string
    readonly page: string
    readonly hls: string
    readonly slow: string
    readonly thumbnail: string
    readonly notFound: string
    readonly gone: string
    /** A page whose <video> carries two WebVTT <track>s (en "English", de "Deutsch"), as HTML5 players do. */
    readonly subtitledPage: string
    /** A podcast RSS feed of `podcastFeedEpisodes` episodes, each an enclosure of tone.m4a (?episode=n); its ?rate=
     * passes on to the enclosures (slow episodes). */
    readonly podcastFeed: string
    /** Always 429 Too Many Requests, as a platform that rate-limits us would answer. */
    readonly rateLimited: string
    /**
     * The watch page behind a bot wall: Cloudflare's 403 challenge page (`cf-mitigated: challenge`) unless the request
     * carries a browser's client hints (sec-ch-ua), which yt-dlp sends only when it impersonates a browser.
     * `always` challenges every request.
     */
    antiBot(name: string, always?: boolean): string
    /**
     * A members-only watch page: answered only with the current `mds_session` cookie, which it rotates on every
     * answer (Set-Cookie), so a client that does not keep the rotated cookie is refused next time.
     */
    readonly members: string
    /** The podcast feed behind the same members-only session as `members` (checked and rotated alike). */
    readonly membersFeed: string
    redirectTo(target: string): string
    /** clip.mp4, after the first `failures` requests of this exact URL were answered with `status` (a flaky platform). */
    flaky(name: string, failures: number, status?: number): string
    /** DASH: two video-only heights and a separate audio adaptation set. */
    readonly dash: string
    /** HLS master with two video-only variants and an EXT-X-MEDIA TYPE=AUDIO rendition. */
    readonly hlsAudio: string
    /** VP9/Opus WebM. */
    readonly webm: string
    /** MP3 with ID3 tags and a cover picture. */
    readonly mp3: string
    /** A podcast episode page whose JSON-LD names the episode, its author and the MP3. */
    readonly podcastPage: string
    /** An HTML5 page with a <video> of two <source>s (clip.mp4 and clip.webm). */
    readonly html5Page: string
    /** A page whose media URL is signed to stop working `ttlMs` after the page was served, or at `expireSignedUrls()` (403). */
    signedPage(ttlMs: number): string
  }
  /**
   * A feed the test grows and breaks: `name`'s episodes newest first, each an enclosure of tone.m4a; any query besides
   * `name` is ignored (two URLs of one feed). Starts with 0 episodes, answering normally.
   */
  growingFeed(name: string, alias?: string): string
  /**
   * Sets the growing feed's episode count, titles (default "Episode n"), whether it answers 503, each episode's
   * <pubDate> and <guid> (default none: null leaves the element out), and whether it stalls: a request to a stalled feed
   * gets no answer (not a byte) until the feed is set not stalled, then the feed as it is then.
   */
  setFeed(
    name: string,
    settings: {
      readonly episodes?: number
      readonly failing?: boolean
      readonly title?: (episode: number) => string
      readonly published?: (episode: number) => Date | null
      readonly guid?: (episode: number) => string | null
      readonly stalled?: boolean
    }
  ): void
  /** Requests to stalled feeds held open now (their clients still waiting), over every growing feed. */
  heldRequests(): number
  /** Paths requested so far, in order. */
  readonly requests: ReadonlyArray<string>
  /** Path and query of every request answered with the bot-wall challenge, in order. */
  readonly challenged: ReadonlyArray<string>
  /** A Netscape cookies.txt holding the members page's current session, as a browser export would. */
  memberCookies(): string
  /** The session value the members page accepts now. */
  memberSession(): string
  /** How many requests the server has seen for a URL it handed out (path and query). */
  requestCount(url: string): number
  /** How many requests the server has seen for a path, whatever the query. */
  pathCount(path: string): number
  /** Makes every signed media URL handed out so far expire now (the page signs fresh ones afterwards). */
  expireSignedUrls(): void
  close(): Promise<void>
}

/** The metadata the watch page announces, so tests compare against the same values. */
export const clipPage = {
  title: "MDS Test Clip",
  author: "MDS Fixtures",
  durationSeconds: fixtureFacts.clipSeconds,
  description: "A four second test pattern with a 440 Hz tone."
} as const

const contentTypes: Record<string, string> = {
  ".mp4": "video/mp4",
  ".m4a": "audio/mp4",
  ".jpg": "image/jpeg",
  ".m3u8": "application/vnd.apple.mpegurl",
  ".ts": "video/mp2t",
  ".webm": "video/webm",
  ".mp3": "audio/mpeg",
  ".mpd": "application/dash+xml",
  ".m4s": "video/iso.segment",
  ".html": "text/html; charset=utf-8"
}

const DEFAULT_THROTTLE = 512 * 1024

type ByteRange = { readonly start: number; readonly end: number }

/** Parses a single-range "bytes=" header; null means the whole body, "unsatisfiable" means 416. */
const parseRange = (header: string | undefined, size: number): ByteRange | null | "unsatisfiable" => {
  if (header === undefined) return null
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim())
  if (match === null) return null
  const [, from = "", to = ""] = match
  if (from === "" && to === "") return null
  if (from === "") {
    const suffix = Number(to)
    if (suffix === 0) return "unsatisfiable"
    return { start: Math.max(0, size - suffix), end: size - 1 }
  }
  const start = Number(from)
  const end = to === "" ? size - 1 : Math.min(Number(to), size - 1)
  if (start >= size || end < start) return "unsatisfiable"
  return { start, end }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Writes the body in slices of a tenth of the rate every 100 ms, so a download takes observable time. */
const writeThrottled = async (res: ServerResponse, body: Buffer, bytesPerSecond: number) => {
  const slice = Math.max(1, Math.floor(bytesPerSecond / 10))
  for (let offset = 0; offset < body.length; offset += slice) {
    if (res.destroyed) return
    const ok = res.write(body.subarray(offset, offset + slice))
    if (!ok) await new Promise((r) => res.once("drain", r))
    await sleep(100)
  }
  res.end()
}

/**
 * Like most real video pages, the player gets its source from script: a literal <source> would make yt-dlp's
 * html5 embed win over the JSON-LD and lose the title, author and duration the tests want to see extracted.
 */
const watchPage = (origin: string, durationSeconds: number) => {
  const clip = `${origin}/media/clip.mp4`
  const thumb = `${origin}/media/thumb.jpg`
  const jsonLd = {
    "@context": "https://schema.org",
    "@type": "VideoObject",
    name: clipPage.title,
    description: clipPage.description,
    author: { "@type": "Person", name: clipPage.author },
    duration: `PT${durationSeconds}S`,
    uploadDate: "2026-01-01T00:00:00Z",
    thumbnailUrl: thumb,
    contentUrl: clip
  }
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${clipPage.title}</title>
<meta property="og:title" content="${clipPage.title}">
<meta property="og:type" content="video.other">
<meta property="og:image" content="${thumb}">
<meta property="og:video" content="${clip}">
<meta property="og:video:type" content="video/mp4">
<meta property="og:video:width" content="${fixtureFacts.clipWidth}">
<meta property="og:video:height" content="${fixtureFacts.clipHeight}">
<script type="application/ld+json">${JSON.stringify(jsonLd)}</script>
</head>
<body>
<h1>${clipPage.title}</h1>
<video id="player" controls width="${fixtureFacts.clipWidth}" height="${fixtureFacts.clipHeight}" poster="${thumb}"></video>
<script>
document.getElementById("player").src = JSON.parse(document.querySelector("script[type='application/ld+json']").textContent).contentUrl
</script>
</body>
</html>
`
}

export const podcastFeedEpisodes = 3

const podcastFeed = (origin: string, rate: string | null) => `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd">
<channel>
<title>MDS Test Feed</title>
<link>${origin}/</link>
<description>Three tones.</description>
${Array.from(
  { length: podcastFeedEpisodes },
  (_, i) => `<item>
<title>Episode ${i + 1}</title>
<enclosure url="${origin}/media/tone.m4a?episode=${i + 1}${rate === null ? "" : `&amp;rate=${rate}`}" type="audio/mp4" length="1000"/>
<itunes:duration>${fixtureFacts.clipSeconds}</itunes:duration>
</item>`
).join("\n")}
</channel>
</rss>
`

interface GrowingFeed {
  episodes: number
  failing: boolean
  title: (episode: number) => string
  published: (episode: number) => Date | null
  guid: (episode: number) => string | null
  stalled: boolean
  /** Requests held while stalled: each answers when the feed stops stalling (or the server closes). */
  readonly held: Array<{ readonly response: ServerResponse; readonly answer: () => void }>
}

const optionalElement = (name: string, value: string | null) => (value === null ? "" : `\n<${name}>${value}</${name}>`)

const growingFeedXml = (origin: string, name: string, feed: GrowingFeed) => `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd">
<channel>
<title>Growing feed ${name}</title>
<link>${origin}/</link>
<description>Grows between checks.</description>
${Array.from({ length: feed.episodes }, (_, i) => feed.episodes - i)
  .map(
    (n) => `<item>
<title>${feed.title(n)}</title>${optionalElement("pubDate", feed.published(n)?.toUTCString() ?? null)}${optionalElement("guid", feed.guid(n))}
<enclosure url="${origin}/media/tone.m4a?feed=${encodeURIComponent(name)}&amp;episode=${n}" type="audio/mp4" length="1000"/>
<itunes:duration>${fixtureFacts.clipSeconds}</itunes:duration>
</item>`
  )
  .join("\n")}
</channel>
</rss>
`

/** The cues of the subtitled page's tracks, so tests compare against the same text. */
export const subtitleCues = { en: "Hello from the test pattern", de: "Hallo vom Testbild" } as const

const webVtt = (text: string) => `WEBVTT

00:00:00.500 --> 00:00:02.000
${text}

00:00:02.500 --> 00:00:03.500
${text} (2)
`

const subtitledPage = (origin: string) => `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>MDS Subtitled Clip</title></head>
<body>
<video controls width="${fixtureFacts.clipWidth}" height="${fixtureFacts.clipHeight}">
<source src="${origin}/media/clip.mp4" type="video/mp4">
<track kind="subtitles" src="${origin}/subs/clip.en.vtt" srclang="en" label="English">
<track kind="captions" src="${origin}/subs/clip.de.vtt" srclang="de" label="Deutsch">
</video>
</body>
</html>
`

/** The metadata the podcast page announces. */
export const podcastPage = {
  title: streamingFacts.episodeTitle,
  author: "MDS Podcast Network",
  series: "MDS Test Podcast"
} as const

const podcastEpisodePage = (origin: string) => {
  const jsonLd = {
    "@context": "https://schema.org",
    "@graph": [
      {
        "@type": "PodcastEpisode",
        name: podcastPage.title,
        description: "A four second tone.",
        partOfSeries: { "@type": "PodcastSeries", name: podcastPage.series }
      },
      {
        "@type": "AudioObject",
        name: podcastPage.title,
        author: { "@type": "Person", name: podcastPage.author },
        duration: `PT${streamingFacts.episodeSeconds}S`,
        contentUrl: `${origin}/media/episode.mp3`
      }
    ]
  }
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${podcastPage.title}</title>
<script type="application/ld+json">${JSON.stringify(jsonLd)}</script>
</head><body><h1>${podcastPage.title}</h1><audio id="player" controls></audio></body></html>
`
}

const html5VideoPage = (origin: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>MDS HTML5 Page</title></head>
<body><video controls poster="${origin}/media/thumb.jpg">
<source src="${origin}/media/clip.mp4" type="video/mp4">
<source src="${origin}/media/clip.webm" type="video/webm">
</video></body></html>
`

/** Like a platform's page: the media link is signed and carries its expiry; the JSON-LD keeps the title stable. */
const signedWatchPage = (mediaUrl: string) => {
  const jsonLd = {
    "@context": "https://schema.org",
    "@type": "VideoObject",
    name: "MDS Signed Clip",
    author: { "@type": "Person", name: clipPage.author },
    duration: `PT${clipPage.durationSeconds}S`,
    contentUrl: mediaUrl
  }
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>MDS Signed Clip</title>
<script type="application/ld+json">${JSON.stringify(jsonLd)}</script>
</head><body><video id="player" controls></video></body></html>
`
}

/** Starts the server on a free port; fixtures are generated on first use and cached per machine. */
export const startMediaServer = async (options?: { readonly throttleBytesPerSecond?: number }): Promise<MediaServer> => {
  const fixtures: MediaFixtures = await ensureMediaFixtures()
  const streaming = await ensureStreamingFixtures()
  const signingKey = randomBytes(16)
  const sign = (expires: string) => createHmac("sha256", signingKey).update(expires).digest("hex")
  // Links signed before this instant count as expired, whatever their own expiry says.
  let signedNotBefore = 0
  const throttle = options?.throttleBytesPerSecond ?? DEFAULT_THROTTLE
  const requests: Array<string> = []
  const challenged: Array<string> = []
  let memberSession = randomBytes(12).toString("hex")
  const cache = new Map<string, Buffer>()
  const flakyCounts = new Map<string, number>()
  const growingFeeds = new Map<string, GrowingFeed>()
  const growingFeedOf = (name: string) => {
    let feed = growingFeeds.get(name)
    if (feed === undefined) {
      feed = {
        episodes: 0,
        failing: false,
        title: (n) => `Episode ${n}`,
        published: () => null,
        guid: () => null,
        stalled: false,
        held: []
      }
      growingFeeds.set(name, feed)
    }
    return feed
  }
  const requestedUrls: Array<string> = []
  let origin = ""

  const files: Record<string, string> = {
    "/media/clip.mp4": fixtures.clipMp4,
    "/media/silent.mp4": fixtures.silentMp4,
    "/media/tone.m4a": fixtures.toneM4a,
    "/media/slow.mp4": fixtures.slowMp4,
    "/media/thumb.jpg": fixtures.thumbJpg,
    "/media/clip.webm": streaming.vp9Webm,
    "/media/episode.mp3": streaming.episodeMp3
  }
  const directories: Record<string, string> = {
    "/hls/": fixtures.hlsDir,
    "/dash/": streaming.dashDir,
    "/hls-audio/": streaming.hlsAudioDir
  }

  const resolveFile = (path: string): string | null => {
    const direct = files[path]
    if (direct !== undefined) return direct
    for (const [prefix, dir] of Object.entries(directories)) {
      if (!path.startsWith(prefix)) continue
      // normalize() collapses "..", so a request cannot climb out of the fixture directory.
      const relative = normalize(path.slice(prefix.length))
      if (relative.startsWith("..") || relative.startsWith("/")) return null
      return join(dir, relative)
    }
    return null
  }

  const load = async (file: string) => {
    const cached = cache.get(file)
    if (cached !== undefined) return cached
    const body = await readFile(file).catch(() => null)
    if (body !== null) cache.set(file, body)
    return body
  }

  const sendBody = async (
    req: IncomingMessage,
    res: ServerResponse,
    body: Buffer,
    contentType: string,
    throttled: boolean,
    bytesPerSecond = throttle
  ) => {
    const range = parseRange(req.headers.range, body.length)
    res.setHeader("Accept-Ranges", "bytes")
    res.setHeader("Content-Type", contentType)
    res.setHeader("Last-Modified", "Thu, 01 Jan 2026 00:00:00 GMT")
    if (range === "unsatisfiable") {
      res.writeHead(416, { "Content-Range": `bytes */${body.length}`, "Content-Length": "0" })
      res.end()
      return
    }
    const part = range === null ? body : body.subarray(range.start, range.end + 1)
    if (range !== null) res.setHeader("Content-Range", `bytes ${range.start}-${range.end}/${body.length}`)
    res.writeHead(range === null ? 200 : 206, { "Content-Length": String(part.length) })
    if (req.method === "HEAD") {
      res.end()
      return
    }
    if (throttled) await writeThrottled(res, part, bytesPerSecond)
    else res.end(part)
  }

  const sendPage = (req: IncomingMessage, res: ServerResponse, html: string) =>
    sendBody(req, res, Buffer.from(html), contentTypes[".html"] ?? "text/html", false)

  /** The clip, unthrottled. */
  const sendClip = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await load(fixtures.clipMp4)
    return body === null ? sendStatus(res, 500, "fixture missing") : sendBody(req, res, body, "video/mp4", false)
  }

  /** Shaped like the page Cloudflare answers a suspected bot with. */
  const sendChallenge = (res: ServerResponse) => {
    const body =
      '<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title></head>' +
      '<body><noscript>Enable JavaScript and cookies to continue</noscript><script src="/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1"></script></body></html>'
    res.writeHead(403, {
      "Content-Type": "text/html; charset=UTF-8",
      "Content-Length": String(Buffer.byteLength(body)),
      "cf-mitigated": "challenge",
      Server: "cloudflare",
      "Cache-Control": "private, max-age=0, no-store, no-cache, must-revalidate",
      "Set-Cookie": "__cf_bm=fixture; path=/; HttpOnly; SameSite=None"
    })
    res.end(body)
  }

  const sendStatus = (res: ServerResponse, status: number, text: string) => {
    res.writeHead(status, { "Content-Type": "text/plain; charset=utf-8", "Content-Length": String(Buffer.byteLength(text)) })
    res.end(text)
  }

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", origin)
    requests.push(url.pathname)
    requestedUrls.push(`${url.pathname}${url.search}`)
    if (req.method !== "GET" && req.method !== "HEAD") return sendStatus(res, 405, "method not allowed")
    switch (url.pathname) {
      case "/media/missing.mp4":
        return sendStatus(res, 404, "not found")
      case "/media/removed.mp4":
        return sendStatus(res, 410, "gone")
      case "/media/ratelimited.mp4":
        res.setHeader("Retry-After", "60")
        return sendStatus(res, 429, "too many requests")
      case "/redirect": {
        const target = url.searchParams.get("to")
        if (target === null) return sendStatus(res, 400, "missing to")
        res.writeHead(302, { Location: target, "Content-Length": "0" })
        return res.end()
      }
      case "/flaky": {
        const key = url.search
        const seen = (flakyCounts.get(key) ?? 0) + 1
        flakyCounts.set(key, seen)
        const failures = Number(url.searchParams.get("fail") ?? "0")
        if (seen <= failures) return sendStatus(res, Number(url.searchParams.get("status") ?? "503"), "try again later")
        return sendClip(req, res)
      }
      case "/feeds/podcast.xml":
        return sendBody(
          req,
          res,
          Buffer.from(podcastFeed(origin, url.searchParams.get("rate"))),
          "application/rss+xml; charset=utf-8",
          false
        )
      case "/feeds/growing.xml": {
        const name = url.searchParams.get("name") ?? ""
        const feed = growingFeedOf(name)
        const answer = () => {
          // A client that gave up waiting (its timeout) is answered by nobody.
          if (res.destroyed) return
          if (feed.failing) return sendStatus(res, 503, "feed unavailable")
          return sendBody(req, res, Buffer.from(growingFeedXml(origin, name, feed)), "application/rss+xml; charset=utf-8", false)
        }
        if (!feed.stalled) return answer()
        feed.held.push({ response: res, answer })
        return
      }
      case "/watch/subtitled.html":
        return sendPage(req, res, subtitledPage(origin))
      case "/subs/clip.en.vtt":
      case "/subs/clip.de.vtt": {
        const language = url.pathname.endsWith(".en.vtt") ? "en" : "de"
        return sendBody(req, res, Buffer.from(webVtt(subtitleCues[language])), "text/vtt; charset=utf-8", false)
      }
      case "/members/clip.html":
      case "/members/feed.xml": {
        const sent = /(?:^|;\s*)mds_session=([^;]*)/.exec(req.headers.cookie ?? "")?.[1]
        if (sent !== memberSession) return sendStatus(res, 403, "Sign in to confirm your age. This video requires authentication.")
        memberSession = randomBytes(12).toString("hex")
        res.setHeader("Set-Cookie", `mds_session=${memberSession}; Path=/; Max-Age=86400`)
        if (url.pathname === "/members/feed.xml") {
          return sendBody(req, res, Buffer.from(podcastFeed(origin, null)), "application/rss+xml; charset=utf-8", false)
        }
        return sendPage(req, res, watchPage(origin, clipPage.durationSeconds))
      }
      case "/antibot/clip.html":
        // ?always=1: a wall that impersonation does not pass either.
        if (req.headers["sec-ch-ua"] === undefined || url.searchParams.get("always") === "1") {
          challenged.push(`${url.pathname}${url.search}`)
          return sendChallenge(res)
        }
        return sendPage(req, res, watchPage(origin, clipPage.durationSeconds))
      case "/podcast/episode.html":
        return sendPage(req, res, podcastEpisodePage(origin))
      case "/watch/html5.html":
        return sendPage(req, res, html5VideoPage(origin))
      case "/signed/watch.html": {
        const issued = Date.now()
        const expires = `${issued + Number(url.searchParams.get("ttl") ?? "60000")}.${issued}`
        const mediaUrl = `${origin}/signed/clip.mp4?expires=${expires}&sig=${sign(expires)}`
        return sendPage(req, res, signedWatchPage(mediaUrl))
      }
      case "/signed/clip.mp4": {
        const expires = url.searchParams.get("expires") ?? ""
        if (url.searchParams.get("sig") !== sign(expires)) return sendStatus(res, 403, "bad signature")
        const [until = "0", issued = "0"] = expires.split(".")
        if (!(Number(until) > Date.now()) || Number(issued) < signedNotBefore) return sendStatus(res, 403, "Signature expired")
        return sendClip(req, res)
      }
      case "/watch/clip.html":
        // ?duration=<seconds> makes the page announce another duration than the clip's (the limits judge the announcement).
        return sendPage(req, res, watchPage(origin, Number(url.searchParams.get("duration") ?? clipPage.durationSeconds)))
    }
    const file = resolveFile(url.pathname)
    const body = file === null ? null : await load(file)
    if (file === null || body === null) return sendStatus(res, 404, "not found")
    const type = contentTypes[extname(file)] ?? "application/octet-stream"
    // ?rate=<bytes per second> throttles any file, e.g. to make a small clip take long.
    const rate = Number(url.searchParams.get("rate") ?? "0")
    return sendBody(req, res, body, type, url.pathname === "/media/slow.mp4" || rate > 0, rate > 0 ? rate : throttle)
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendStatus(res, 500, String(error))
      else res.destroy()
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve())
  })
  const { port } = server.address() as AddressInfo
  origin = `http://127.0.0.1:${port}`

  return {
    origin,
    hostPort: `127.0.0.1:${port}`,
    urls: {
      mp4: `${origin}/media/clip.mp4`,
      silentMp4: `${origin}/media/silent.mp4`,
      audio: `${origin}/media/tone.m4a`,
      page: `${origin}/watch/clip.html`,
      hls: `${origin}/hls/master.m3u8`,
      slow: `${origin}/media/slow.mp4`,
      thumbnail: `${origin}/media/thumb.jpg`,
      notFound: `${origin}/media/missing.mp4`,
      gone: `${origin}/media/removed.mp4`,
      rateLimited: `${origin}/media/ratelimited.mp4`,
      subtitledPage: `${origin}/watch/subtitled.html`,
      podcastFeed: `${origin}/feeds/podcast.xml`,
      members: `${origin}/members/clip.html`,
      membersFeed: `${origin}/members/feed.xml`,
      antiBot: (name: string, always = false) => `${origin}/antibot/clip.html?name=${encodeURIComponent(name)}${always ? "&always=1" : ""}`,
      redirectTo: (target: string) => `${origin}/redirect?to=${encodeURIComponent(target)}`,
      flaky: (name: string, failures: number, status = 503) =>
        `${origin}/flaky?name=${encodeURIComponent(name)}&fail=${failures}&status=${status}`,
      dash: `${origin}/dash/manifest.mpd`,
      hlsAudio: `${origin}/hls-audio/master.m3u8`,
      webm: `${origin}/media/clip.webm`,
      mp3: `${origin}/media/episode.mp3`,
      podcastPage: `${origin}/podcast/episode.html`,
      html5Page: `${origin}/watch/html5.html`,
      signedPage: (ttlMs: number) => `${origin}/signed/watch.html?ttl=${ttlMs}`
    },
    growingFeed: (name: string, alias?: string) =>
      `${origin}/feeds/growing.xml?name=${encodeURIComponent(name)}${alias === undefined ? "" : `&alias=${encodeURIComponent(alias)}`}`,
    setFeed: (name, settings) => {
      const feed = growingFeedOf(name)
      if (settings.episodes !== undefined) feed.episodes = settings.episodes
      if (settings.failing !== undefined) feed.failing = settings.failing
      if (settings.title !== undefined) feed.title = settings.title
      if (settings.published !== undefined) feed.published = settings.published
      if (settings.guid !== undefined) feed.guid = settings.guid
      if (settings.stalled !== undefined) feed.stalled = settings.stalled
      if (!feed.stalled) for (const held of feed.held.splice(0)) held.answer()
    },
    heldRequests: () => {
      let open = 0
      for (const feed of growingFeeds.values()) open += feed.held.filter((held) => !held.response.destroyed).length
      return open
    },
    requests,
    challenged,
    memberCookies: () =>
      `# Netscape HTTP Cookie File\n127.0.0.1\tFALSE\t/\tFALSE\t${Math.floor(Date.now() / 1000) + 86400}\tmds_session\t${memberSession}\n`,
    memberSession: () => memberSession,
    requestCount: (target: string) => {
      const wanted = new URL(target)
      return requestedUrls.filter((seen) => seen === `${wanted.pathname}${wanted.search}`).length
    },
    pathCount: (path: string) => requests.filter((seen) => seen === path).length,
    expireSignedUrls: () => {
      signedNotBefore = Date.now() + 1
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        // Throttled downloads would otherwise hold the server open for seconds.
        server.closeAllConnections()
        server.close((error) => (error ? reject(error) : resolve()))
      })
  }
}
