// How the dashboard writes times and scopes: absolute UTC times, readable on any screen and in any locale.

export const formatTime = (ms: number | null): string => {
  if (ms === null) return "never"
  const iso = new Date(ms).toISOString()
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`
}
