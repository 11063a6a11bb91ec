// Per-platform knowledge as data: the curated table of well-known platforms, blocked hosts and short-link hosts.

/** The spec's capabilities (its allowed values: a platform's live streams are the `live` field beside them). */
export type Capability = "video" | "audio" | "image" | "metadata"

export interface PlatformEntry {
  readonly id: string
  readonly name: string
  readonly capabilities: ReadonlyArray<Capability>
  /**
   * Extension: the platform's extractors in the installed yt-dlp read its live streams (they report live_status, so an
   * upcoming stream is scheduled and a live one recorded from its HLS/DASH manifest).
   */
  readonly live?: true
  /** Host names (and their subdomains) that belong to the platform. */
  readonly hosts: ReadonlyArray<string>
  /** yt-dlp extractor keys; the platform is offered only when the installed yt-dlp has one of them working. */
  readonly extractors: ReadonlyArray<string>
  /**
   * HLS/DASH fragments one run fetches at once (yt-dlp's --concurrent-fragments); 1 for a platform that bans parallel
   * connections. Unset: the extractor's CONCURRENT_FRAGMENTS; PLATFORM_CONCURRENT_FRAGMENTS overrides either.
   */
  readonly concurrentFragments?: number
}

export const GENERIC_PLATFORM_ID = "generic"

/** Covers direct media files, HTML5/JSON-LD video pages and HLS/DASH manifests on any other host. */
export const GENERIC_PLATFORM: PlatformEntry = {
  id: GENERIC_PLATFORM_ID,
  name: "Generic (direct files, HTML5 pages, HLS/DASH)",
  // A live HLS or DASH manifest (no #EXT-X-ENDLIST, an MPD of type="dynamic") is read as live by yt-dlp's generic extractor.
  capabilities: ["video", "audio", "metadata"],
  live: true,
  hosts: [],
  extractors: ["Generic"]
}

/**
 * Well-known platforms: a display name and capabilities curated here, and the yt-dlp extractor keys (the info's
 * `extractor_key`, the class name without "IE") that handle their single media. Every other working extractor of the
 * installed yt-dlp is offered too, under an id derived from its key (derivedPlatforms). No platform advertises
 * `image`: the service downloads video and audio only.
 */
export const CURATED_PLATFORMS: ReadonlyArray<PlatformEntry> = [
  {
    id: "vimeo",
    name: "Vimeo",
    capabilities: ["video", "audio", "metadata"],
    live: true,
    hosts: ["vimeo.com", "player.vimeo.com"],
    extractors: ["Vimeo", "VimeoOndemand", "VimeoPro", "VimeoReview"]
  },
  {
    id: "dailymotion",
    name: "Dailymotion",
    capabilities: ["video", "audio", "metadata"],
    live: true,
    hosts: ["dailymotion.com", "dai.ly"],
    extractors: ["Dailymotion"]
  },
  {
    id: "tiktok",
    name: "TikTok",
    capabilities: ["video", "audio", "metadata"],
    live: true,
    hosts: ["tiktok.com"],
    extractors: ["TikTok", "TikTokVM", "TikTokLive"]
  },
  {
    id: "instagram",
    name: "Instagram",
    capabilities: ["video", "audio", "metadata"],
    hosts: ["instagram.com"],
    extractors: ["Instagram", "InstagramIOS", "InstagramStory"]
  },
  {
    id: "twitter",
    name: "X (Twitter)",
    capabilities: ["video", "audio", "metadata"],
    live: true,
    hosts: ["twitter.com", "x.com"],
    extractors: ["Twitter", "TwitterCard", "TwitterBroadcast", "TwitterSpaces", "TwitterAmplify"]
  },
  {
    id: "facebook",
    name: "Facebook",
    capabilities: ["video", "audio", "metadata"],
    live: true,
    hosts: ["facebook.com"],
    extractors: ["Facebook", "FacebookReel", "FacebookPluginsVideo"]
  },
  { id: "reddit", name: "Reddit", capabilities: ["video", "audio", "metadata"], hosts: ["reddit.com"], extractors: ["Reddit"] },
  {
    id: "soundcloud",
    name: "SoundCloud",
    capabilities: ["audio", "metadata"],
    hosts: ["soundcloud.com"],
    extractors: ["Soundcloud", "SoundcloudEmbed"]
  },
  { id: "bandcamp", name: "Bandcamp", capabilities: ["audio", "metadata"], hosts: ["bandcamp.com"], extractors: ["Bandcamp"] },
  {
    id: "twitch",
    name: "Twitch",
    capabilities: ["video", "audio", "metadata"],
    live: true,
    hosts: ["twitch.tv", "clips.twitch.tv"],
    extractors: ["TwitchVod", "TwitchClips", "TwitchStream"]
  },
  {
    id: "bilibili",
    name: "Bilibili",
    capabilities: ["video", "audio", "metadata"],
    hosts: ["bilibili.com"],
    extractors: ["BiliBili", "BiliBiliPlayer", "BilibiliAudio"]
  },
  {
    id: "streamable",
    name: "Streamable",
    capabilities: ["video", "audio", "metadata"],
    hosts: ["streamable.com"],
    extractors: ["Streamable"]
  },
  { id: "mixcloud", name: "Mixcloud", capabilities: ["audio", "metadata"], hosts: ["mixcloud.com"], extractors: ["Mixcloud"] },
  {
    id: "vk",
    name: "VK",
    capabilities: ["video", "audio", "metadata"],
    live: true,
    hosts: ["vk.com", "vkvideo.ru"],
    extractors: ["VK", "VKWallPost"]
  },
  { id: "tumblr", name: "Tumblr", capabilities: ["video", "audio", "metadata"], hosts: ["tumblr.com"], extractors: ["Tumblr"] },
  { id: "pinterest", name: "Pinterest", capabilities: ["video", "metadata"], hosts: ["pinterest.com"], extractors: ["Pinterest"] },
  { id: "imgur", name: "Imgur", capabilities: ["video", "metadata"], hosts: ["imgur.com"], extractors: ["Imgur"] },
  {
    id: "rumble",
    name: "Rumble",
    capabilities: ["video", "audio", "metadata"],
    live: true,
    hosts: ["rumble.com"],
    extractors: ["Rumble", "RumbleEmbed"]
  },
  {
    id: "archive_org",
    name: "Internet Archive",
    capabilities: ["video", "audio", "metadata"],
    hosts: ["archive.org"],
    extractors: ["ArchiveOrg"]
  },
  { id: "ted", name: "TED", capabilities: ["video", "audio", "metadata"], hosts: ["ted.com"], extractors: ["TedTalk", "TedEmbed"] }
]

/** yt-dlp extractor keys starting with this (Youtube, YoutubeTab, YoutubeClip, ...) are not supported by this service. */
export const BLOCKED_EXTRACTOR_PREFIX = "youtube"

/** Present in yt-dlp's extractor list, but not supported by this service. */
export const BLOCKED_HOSTS: ReadonlyArray<string> = ["youtube.com", "youtube-nocookie.com", "youtubekids.com", "youtu.be"]

/** Link shorteners: the client must send the canonical link instead. */
export const SHORT_LINK_HOSTS: ReadonlyArray<string> = [
  "bit.ly",
  "t.co",
  "youtu.be",
  "vm.tiktok.com",
  "vt.tiktok.com",
  "tinyurl.com",
  "goo.gl",
  "ow.ly",
  "buff.ly",
  "is.gd",
  "rebrand.ly",
  "cutt.ly",
  "shorturl.at",
  "t.ly",
  "tiny.cc",
  "fb.watch",
  "redd.it",
  "amzn.to",
  "lnkd.in",
  "dlvr.it",
  "spoti.fi",
  "on.soundcloud.com"
]
