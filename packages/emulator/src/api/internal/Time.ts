/**
 * RFC 3339 timestamps as Kubernetes writes them (seconds precision, UTC), from epoch milliseconds.
 * Hand-written rather than Effect's `DateTime.formatIso`, which always writes milliseconds
 * (`…05.000Z`) where Go's `metav1.Time` writes none and `metav1.MicroTime` six digits; the date
 * comes from `IsoTime.civilFromDays` (checked against `DateTime` in @kopf/structs' tests).
 */
import { IsoTime } from "@kopf/structs";

const pad = (n: number, width = 2): string => String(n).padStart(width, "0");

const parts = (millis: number) => {
  const days = Math.floor(millis / 86_400_000);
  const rest = millis - days * 86_400_000;
  const [y, mo, d] = IsoTime.civilFromDays(days);
  const h = Math.floor(rest / 3_600_000);
  const mi = Math.floor((rest % 3_600_000) / 60_000);
  const s = Math.floor((rest % 60_000) / 1000);
  return {
    date: `${pad(y, 4)}-${pad(mo)}-${pad(d)}`,
    time: `${pad(h)}:${pad(mi)}:${pad(s)}`,
    micros: (rest % 1000) * 1000,
  };
};

let lastSecond = Number.NaN;
let lastFormatted = "";

/** `2024-01-02T03:04:05Z` (metav1.Time); the last second's text is reused (every write stamps one). */
export const formatTime = (millis: number): string => {
  const second = Math.floor(millis / 1000);
  if (second === lastSecond) return lastFormatted;
  const p = parts(millis);
  lastSecond = second;
  lastFormatted = `${p.date}T${p.time}Z`;
  return lastFormatted;
};

/** `2024-01-02T03:04:05.123000Z` (metav1.MicroTime). */
export const formatMicroTime = (millis: number): string => {
  const p = parts(millis);
  return `${p.date}T${p.time}.${pad(p.micros, 6)}Z`;
};
