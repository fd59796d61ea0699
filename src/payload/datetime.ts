// RFC 3339 datetimes for range conditions and datetime indexes. Both the evaluator and the index
// read timestamps through this one function, so they can never disagree about a value.
// Accepted: `2024-05-01`, `2024-05-01T10:20:30Z`, fractions up to microseconds, offsets
// `+02:00`/`+0200`, a space instead of `T`, and no zone (read as UTC, as Qdrant does).

const datetimePattern =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))?)?$/;

const daysInMonth = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/**
 * Milliseconds since the epoch (UTC) with microsecond precision in the fraction, or undefined
 * when `text` is not a datetime we accept.
 */
export function parseDatetime(text: string): number | undefined {
  if (text.length > 40) return undefined;
  const match = datetimePattern.exec(text);
  if (!match) return undefined;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  const hour = match[4] === undefined ? 0 : Number(match[4]);
  const minute = match[5] === undefined ? 0 : Number(match[5]);
  const second = match[6] === undefined ? 0 : Number(match[6]);
  if (month < 1 || month > 12 || day < 1) return undefined;
  if (day > daysInMonth[month - 1]! || (month === 2 && day === 29 && !isLeapYear(year))) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  let offsetMinutes = 0;
  if (match[9] !== undefined) {
    const offsetHours = Number(match[10]);
    const offsetRest = Number(match[11]);
    if (offsetHours > 23 || offsetRest > 59) return undefined;
    offsetMinutes = (match[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetRest);
  }
  const utc = new Date(0);
  utc.setUTCFullYear(year, month - 1, day);
  utc.setUTCHours(hour, minute, second, 0);
  const fractionDigits = (match[7] ?? '').slice(0, 6).padEnd(6, '0');
  const fraction_ms = Number(fractionDigits) / 1000;
  return utc.getTime() - offsetMinutes * 60_000 + fraction_ms;
}
