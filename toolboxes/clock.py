"""ovos-clock-tools: the current time and the calendar arithmetic small models get wrong.

Zones come from ``zoneinfo``, which falls back to the ``tzdata`` package where the OS has no zone
database. A zone may be written as an IANA name in any case ('europe/lisbon'), with spaces
('America/New York'), as a city alone ('Lisbon') or as an offset ('UTC+2').
"""

from __future__ import annotations

import calendar
import difflib
import functools
import os
import re
from datetime import date as CalendarDate
from datetime import datetime, timedelta, timezone, tzinfo
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, available_timezones

from ovos_plugin_manager.templates.agent_tools import AgentTool, ToolArguments, ToolOutput
from pydantic import Field

from ovos_agentic_loop_toolboxes._core.errors import BadInput, ToolboxConfigError
from ovos_agentic_loop_toolboxes._core.settings import MAX_SHORT_CHARS, ToolboxSettings, parse_settings
from ovos_agentic_loop_toolboxes._core.toolbox import BundledToolBox

TOOLBOX_ID = "ovos-clock-tools"
ZONE_HELP = "Write an IANA time zone such as 'Europe/Lisbon', 'America/New_York' or 'UTC'"
DATE_HELP = "write dates as YYYY-MM-DD (such as 2025-03-14), or 'today', 'tomorrow', 'yesterday'"
_OFFSET = re.compile(r"(?:UTC|GMT)?\s*([+-])\s*(\d{1,2})(?::?(\d{2}))?", re.IGNORECASE)
_DATE_FORMATS = (
    "%Y-%m-%d",
    "%Y/%m/%d",
    "%d %B %Y",
    "%d %b %Y",
    "%B %d, %Y",
    "%B %d %Y",
    "%b %d, %Y",
    "%b %d %Y",
)
_TIME_FORMATS = ("%H:%M", "%H:%M:%S", "%I:%M %p", "%I:%M%p", "%I %p", "%I%p")
MAX_SHIFT_DAYS = 366 * 1000


# --- zones ------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def _zone_names() -> dict[str, str]:
    """Lower-cased spelling -> IANA key, for every zone the system or tzdata knows."""
    return {name.lower(): name for name in available_timezones()}


def resolve_zone(text: str) -> tzinfo:
    """A tzinfo for a zone name written the way a person or a small model might write it."""
    _check_short(text, "time zone")
    cleaned = text.strip()
    if cleaned.upper() in ("UTC", "GMT", "Z", "ZULU"):
        return timezone.utc
    if match := _OFFSET.fullmatch(cleaned):
        sign, hours, minutes = match.groups()
        offset = timedelta(hours=int(hours), minutes=int(minutes or 0))
        if offset > timedelta(hours=14):
            raise ValueError(f"UTC offset {text!r} is out of range (-14 to +14 hours); {ZONE_HELP}")
        return timezone(-offset if sign == "-" else offset)
    names = _zone_names()
    key = cleaned.replace(" ", "_").lower()
    if key in names:
        return ZoneInfo(names[key])
    by_city = [name for lower, name in names.items() if lower.rsplit("/", 1)[-1] == key]
    if len(by_city) == 1:
        return ZoneInfo(by_city[0])
    close = difflib.get_close_matches(key, list(names), n=3, cutoff=0.6)
    hint = f"; did you mean {' or '.join(repr(names[c]) for c in close)}?" if close else ""
    raise ValueError(f"unknown time zone {text!r}{hint}. {ZONE_HELP}")


def _check_short(text: str, what: str) -> None:
    """Refuse long text before fuzzy matching (difflib is quadratic in the length)."""
    if len(text) > MAX_SHORT_CHARS:
        raise BadInput(
            f"the {what} is {len(text)} characters long; the limit is {MAX_SHORT_CHARS}: "
            "write it briefly, such as 'Europe/Lisbon' or '2025-03-14'"
        )


def system_zone() -> tzinfo:
    """The machine's zone, as an IANA zone when it can be found (so DST rules apply)."""
    candidates = [os.environ.get("TZ", "").lstrip(":")]
    timezone_file = Path("/etc/timezone")
    if timezone_file.is_file():
        candidates.append(timezone_file.read_text(encoding="utf-8", errors="replace").strip())
    localtime = Path("/etc/localtime")
    if localtime.is_symlink() and "zoneinfo/" in str(localtime.readlink()):
        candidates.append(str(localtime.readlink()).split("zoneinfo/", 1)[1])
    for name in candidates:
        if name and name.lower() in _zone_names():
            return ZoneInfo(_zone_names()[name.lower()])
    return datetime.now().astimezone().tzinfo or timezone.utc


def zone_name(moment: datetime) -> str:
    if isinstance(moment.tzinfo, ZoneInfo):
        return moment.tzinfo.key
    return "UTC" if moment.utcoffset() == timedelta(0) else f"UTC{_offset_text(moment)}"


def _offset_text(moment: datetime) -> str:
    offset = moment.utcoffset() or timedelta(0)
    sign = "-" if offset < timedelta(0) else "+"
    minutes = abs(int(offset.total_seconds())) // 60
    return f"{sign}{minutes // 60:02d}:{minutes % 60:02d}"


# --- configuration and models -----------------------------------------------------------------


class ClockSettings(ToolboxSettings):
    """Configuration of ``ovos-clock-tools``: strict types, unknown keys logged by name."""

    timezone: str | None = Field(None, description="Default zone (IANA name); default: the system's zone.")


class DateTimeInfo(ToolOutput):
    iso: str = Field(description="ISO 8601 timestamp with UTC offset, such as 2025-03-14T15:09:26+00:00.")
    date: str = Field(description="Date as YYYY-MM-DD.")
    time: str = Field(description="24-hour time as HH:MM:SS.")
    weekday: str = Field(description="Day of the week, such as Friday.")
    timezone: str = Field(description="Time zone name, such as Europe/Lisbon.")
    utc_offset: str = Field(description="Offset from UTC as +HH:MM.")

    @classmethod
    def of(cls, moment: datetime) -> DateTimeInfo:
        return cls(
            iso=moment.isoformat(timespec="seconds"),
            date=moment.date().isoformat(),
            time=moment.strftime("%H:%M:%S"),
            weekday=moment.strftime("%A"),
            timezone=zone_name(moment),
            utc_offset=_offset_text(moment),
        )


class GetCurrentDatetimeArgs(ToolArguments):
    timezone: str | None = Field(
        None, description="IANA time zone such as 'Asia/Tokyo'; empty for the default."
    )


class ConvertTimezoneArgs(ToolArguments):
    time: str = Field(description="Time to convert: 'HH:MM' (today), 'YYYY-MM-DD HH:MM', or 'now'.")
    from_timezone: str | None = Field(None, description="Zone the time is in; empty for the default zone.")
    to_timezone: str = Field(description="Zone to convert to, such as 'America/New_York'.")


class ConvertTimezoneOutput(ToolOutput):
    source: DateTimeInfo = Field(description="The time in the original zone.")
    result: DateTimeInfo = Field(description="The same moment in the target zone.")
    note: str = Field("", description="Daylight-saving remarks, if any.")


class DaysBetweenArgs(ToolArguments):
    start_date: str = Field(description="First date, YYYY-MM-DD or 'today'.")
    end_date: str = Field(description="Second date, YYYY-MM-DD or 'today'.")


class DaysBetweenOutput(ToolOutput):
    start_date: str = Field(description="First date, YYYY-MM-DD.")
    end_date: str = Field(description="Second date, YYYY-MM-DD.")
    days: int = Field(description="end_date minus start_date in days; negative when end_date is earlier.")
    weeks: int = Field(description="Whole weeks in that span.")
    extra_days: int = Field(description="Days left over after the whole weeks.")


class AddToDateArgs(ToolArguments):
    date: str = Field("today", description="Start date, YYYY-MM-DD or 'today'.")
    days: int = Field(0, description="Days to add; negative to subtract.")
    weeks: int = Field(0, description="Weeks to add; negative to subtract.")
    months: int = Field(0, description="Calendar months to add; negative to subtract.")
    years: int = Field(0, description="Years to add; negative to subtract.")


class DateInfo(ToolOutput):
    date: str = Field(description="The date, YYYY-MM-DD.")
    weekday: str = Field(description="Day of the week, such as Monday.")
    iso_weekday: int = Field(description="1 = Monday ... 7 = Sunday.")
    iso_week: int = Field(description="ISO week number (1-53).")
    day_of_year: int = Field(description="1 = January 1.")
    note: str = Field("", description="Remarks, such as a day moved to the end of a shorter month.")

    @classmethod
    def of(cls, day: CalendarDate, note: str = "") -> DateInfo:
        return cls(
            date=day.isoformat(),
            weekday=day.strftime("%A"),
            iso_weekday=day.isoweekday(),
            iso_week=day.isocalendar().week,
            day_of_year=day.timetuple().tm_yday,
            note=note,
        )


class GetWeekdayArgs(ToolArguments):
    date: str = Field(description="The date, YYYY-MM-DD or 'today'.")


# --- toolbox ----------------------------------------------------------------------------------


class ClockToolBox(BundledToolBox):
    """Clock and calendar tools.

    Config key: ``timezone`` (default: the system's zone), the zone used when a call gives none.
    """

    def __init__(self, config: dict[str, Any] | None = None, bus: Any = None) -> None:
        # ToolBox.__init__ calls discover_tools and swallows its errors: set state first.
        self.settings = parse_settings(ClockSettings, TOOLBOX_ID, config)
        zone = self.settings.timezone
        try:
            self.default_zone = resolve_zone(zone) if zone else system_zone()
        except ValueError as exc:
            raise ToolboxConfigError(f"{TOOLBOX_ID}: key 'timezone': {exc}") from None
        super().__init__(TOOLBOX_ID, config, bus)

    def diagnostics(self) -> list[str]:
        """Status lines for ``doctor``: the zone used when a call names none."""
        return [f"default time zone: {zone_name(datetime.now(self.default_zone))}"]

    def discover_tools(self) -> list[AgentTool]:
        """The five clock and calendar tools."""
        return [
            AgentTool(
                "get_current_datetime",
                "Current date, time and weekday, in a time zone such as 'Europe/Lisbon' (default: local).",
                GetCurrentDatetimeArgs,
                DateTimeInfo,
                self.get_current_datetime,
            ),
            AgentTool(
                "convert_timezone",
                "Convert a time from one time zone to another, such as '15:00' from 'Europe/London' "
                "to 'Asia/Tokyo'. Handles daylight saving.",
                ConvertTimezoneArgs,
                ConvertTimezoneOutput,
                self.convert_timezone,
            ),
            AgentTool(
                "days_between",
                "Count the days from start_date to end_date (YYYY-MM-DD or 'today').",
                DaysBetweenArgs,
                DaysBetweenOutput,
                self.days_between,
            ),
            AgentTool(
                "add_to_date",
                "Add or subtract days, weeks, months or years to a date (YYYY-MM-DD or 'today'). "
                "Returns the new date and its weekday.",
                AddToDateArgs,
                DateInfo,
                self.add_to_date,
            ),
            AgentTool(
                "get_weekday",
                "Day of the week (and ISO week number) of a date, YYYY-MM-DD or 'today'.",
                GetWeekdayArgs,
                DateInfo,
                self.get_weekday,
            ),
        ]

    # --- tools -------------------------------------------------------------------------------

    def get_current_datetime(self, args: GetCurrentDatetimeArgs) -> DateTimeInfo:
        return DateTimeInfo.of(self._now(args.timezone))

    def convert_timezone(self, args: ConvertTimezoneArgs) -> ConvertTimezoneOutput:
        source_zone = self._zone(args.from_timezone)
        target_zone = resolve_zone(args.to_timezone)
        source, note = self._parse_time(args.time, source_zone)
        try:
            return ConvertTimezoneOutput(
                source=DateTimeInfo.of(source),
                result=DateTimeInfo.of(source.astimezone(target_zone)),
                note=note,
            )
        except OverflowError:  # 9999-12-31 23:59 at UTC-14 is in the year 10000 in UTC.
            raise ValueError(
                "the converted time falls outside the years 1 to 9999; use a nearer date"
            ) from None

    def days_between(self, args: DaysBetweenArgs) -> DaysBetweenOutput:
        start, end = self._date(args.start_date), self._date(args.end_date)
        self._check_stale_year(start, end)
        days = (end - start).days
        weeks, extra = divmod(abs(days), 7)
        sign = -1 if days < 0 else 1
        return DaysBetweenOutput(
            start_date=start.isoformat(),
            end_date=end.isoformat(),
            days=days,
            weeks=sign * weeks,
            extra_days=sign * extra,
        )

    def add_to_date(self, args: AddToDateArgs) -> DateInfo:
        start = self._date(args.date)
        total_months = start.month - 1 + args.months + 12 * args.years
        year, month = start.year + total_months // 12, total_months % 12 + 1
        if not 1 <= year <= 9999:
            raise ValueError("the result is outside the years 1 to 9999; use smaller amounts")
        last_day = calendar.monthrange(year, month)[1]
        note = ""
        if start.day > last_day:
            # Jan 31 + 1 month: there is no Feb 31, so the answer is the last day of February.
            note = (
                f"day {start.day} does not exist in {calendar.month_name[month]} {year}; used day {last_day}"
            )
        shift = args.days + 7 * args.weeks
        if abs(shift) > MAX_SHIFT_DAYS:
            raise ValueError("days and weeks may move the date by at most 1000 years; use years for more")
        try:
            result = CalendarDate(year, month, min(start.day, last_day)) + timedelta(days=shift)
        except OverflowError:
            raise ValueError("the result is outside the years 1 to 9999; use smaller amounts") from None
        return DateInfo.of(result, note)

    def get_weekday(self, args: GetWeekdayArgs) -> DateInfo:
        return DateInfo.of(self._date(args.date))

    # --- parsing -----------------------------------------------------------------------------

    def _zone(self, text: str | None) -> tzinfo:
        return resolve_zone(text) if text and text.strip() else self.default_zone

    def _now(self, zone_text: str | None = None) -> datetime:
        return datetime.now(self._zone(zone_text))

    def _check_stale_year(self, start: CalendarDate, end: CalendarDate) -> None:
        """Counting from today to a date in an earlier year is refused, with the call to make.

        A model counting the days "left until December 31" writes the year it was trained in.
        Given the count (negative) with a note, the bundled model said "-1066 days left"; an error
        that names this year's date is what it acts on. Counting the days since a past date (it
        as start_date, today as end_date) is not touched."""
        today = self._now().date()
        if start != today or end.year >= today.year:
            return
        # The likely fix comes first and whole; the other only as "swap the dates": offered
        # "give it as start_date and 'today' as end_date", the bundled model copied that instead.
        since = f"for the days since {end.isoformat()}, swap the two dates"
        try:
            this_year = end.replace(year=today.year).isoformat()
        except ValueError:  # February 29
            fix = since
        else:
            fix = f"for this year's date call again with end_date {this_year} ({since})"
        raise ValueError(
            f"end_date {end.isoformat()} is in {end.year}, before today ({today.isoformat()}): {fix}"
        )

    def _date(self, text: str) -> CalendarDate:
        _check_short(text, "date")
        cleaned = " ".join(text.strip().split())
        relative = {"today": 0, "now": 0, "tomorrow": 1, "yesterday": -1}
        if cleaned.lower() in relative:
            return self._now().date() + timedelta(days=relative[cleaned.lower()])
        try:
            return datetime.fromisoformat(cleaned).date()
        except ValueError:
            pass
        for layout in _DATE_FORMATS:
            try:
                return datetime.strptime(cleaned, layout).date()
            except ValueError:
                continue
        raise ValueError(f"could not read the date {text!r}; {DATE_HELP}")

    def _parse_time(self, text: str, zone: tzinfo) -> tuple[datetime, str]:
        _check_short(text, "time")
        cleaned = " ".join(text.strip().split())
        if cleaned.lower() == "now":
            return datetime.now(zone), ""
        moment = _read_datetime(cleaned) or _read_clock_time(cleaned, self._now_in(zone))
        if moment is None:
            raise ValueError(
                f"could not read the time {text!r}; write 'HH:MM' (24-hour), 'YYYY-MM-DD HH:MM' or 'now'"
            )
        if moment.tzinfo is not None:
            return moment, "the time carried its own UTC offset, which was used instead of from_timezone"
        local = moment.replace(tzinfo=zone)
        try:
            round_trip = local.astimezone(timezone.utc).astimezone(zone).replace(tzinfo=None)
        except OverflowError:
            raise ValueError("the time falls outside the years 1 to 9999 in UTC; use a nearer date") from None
        # A wall time in a DST gap does not survive a round trip through UTC.
        if round_trip != moment:
            return local, f"{cleaned} does not exist in {zone_name(local)} (the clocks jump forward then)"
        return local, ""

    @staticmethod
    def _now_in(zone: tzinfo) -> datetime:
        return datetime.now(zone)


def _read_datetime(text: str) -> datetime | None:
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return None


def _read_clock_time(text: str, today: datetime) -> datetime | None:
    for layout in _TIME_FORMATS:
        try:
            parsed = datetime.strptime(text.upper(), layout)
        except ValueError:
            continue
        return datetime.combine(today.date(), parsed.time())
    return None
