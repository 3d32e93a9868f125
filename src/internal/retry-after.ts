/** The wait `Retry-After` asks for, in milliseconds; `undefined` unless it is RFC 9110 digits or an HTTP-date. */
export function retryAfterMs(headers: Headers): number | undefined {
  const value = headers.get('retry-after');
  if (value === null) return undefined;
  if (DELAY_SECONDS.test(value)) return Number(value) * 1000;
  const date = httpDate(value);
  return date === undefined ? undefined : Math.max(0, date - Date.now());
}

const DELAY_SECONDS = /^\d+$/;
const MONTHS = 'JanFebMarAprMayJunJulAugSepOctNovDec';
/** `Sun, 06 Nov 1994 08:49:37 GMT` */
const IMF_FIXDATE = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d\d) ([A-Z][a-z]{2}) (\d{4}) (\d\d):(\d\d):(\d\d) GMT$/;
/** `Sunday, 06-Nov-94 08:49:37 GMT` */
const RFC850_DATE = /^(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day, (\d\d)-([A-Z][a-z]{2})-(\d\d) (\d\d):(\d\d):(\d\d) GMT$/;
/** `Sun Nov  6 08:49:37 1994` */
const ASCTIME_DATE = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ([A-Z][a-z]{2}) ([ \d]\d) (\d\d):(\d\d):(\d\d) (\d{4})$/;

/** Epoch milliseconds of an RFC 9110 HTTP-date, or `undefined` when `value` is not one (or names no real instant). */
function httpDate(value: string): number | undefined {
  let match = IMF_FIXDATE.exec(value);
  if (match !== null) return instant(match[3], match[2], match[1], match[4], match[5], match[6]);
  match = ASCTIME_DATE.exec(value);
  if (match !== null) return instant(match[6], match[1], match[2], match[3], match[4], match[5]);
  match = RFC850_DATE.exec(value);
  if (match === null) return undefined;
  // a two-digit year more than 50 years ahead is in the past century (RFC 9110 §5.6.7)
  const now = new Date().getUTCFullYear();
  let year = Math.floor(now / 100) * 100 + Number(match[3]);
  if (year > now + 50) year -= 100;
  return instant(String(year), match[2], match[1], match[4], match[5], match[6]);
}

function instant(...parts: (string | undefined)[]): number | undefined {
  const [year, monthName, day, hours, minutes, seconds] = parts.map((part) => part ?? '');
  const month = MONTHS.indexOf(monthName ?? '');
  if (month < 0 || month % 3 !== 0) return undefined;
  const fields = [Number(year), month / 3, Number(day), Number(hours), Number(minutes), Math.min(Number(seconds), 59)] as const;
  const date = new Date(Date.UTC(...fields));
  // Date.UTC rolls 31 Feb over into March: a date whose fields do not come back is not a real one
  const back = [
    date.getUTCFullYear(),
    date.getUTCMonth(),
    date.getUTCDate(),
    date.getUTCHours(),
    date.getUTCMinutes(),
    date.getUTCSeconds(),
  ];
  return back.every((field, i) => field === fields[i]) ? date.getTime() : undefined;
}
