// Reads the newest version from `pip index versions yt-dlp` output ("yt-dlp (2026.10.26)" on its first line).

/** The version pip named as the newest, or null when the output holds none (pip failed, or the package is unknown). */
export const latestVersionOf = (output: string, packageName: string): string | null => {
  const escaped = packageName.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
  const match = new RegExp(`^${escaped} \\(([^)\\s]+)\\)\\s*$`, "im").exec(output)
  return match?.[1] ?? null
}
