"""A decoy home-automation MCP server for figure 10: 60 tools with real-looking names,
descriptions and argument schemas, in the style of Home Assistant's MCP server with entities,
scripts and helpers exposed. It runs over stdio with the ``mcp`` SDK (``MCPServer``), started by
ovos-tool-adapters' ``ovos-mcp-toolbox`` like any MCP server a persona adds.

Every call answers a plausible, fixed result (``{"ok": true, ...}``): the figure measures what many
tools cost a small model (prompt, choice, calls), not a house. ``--tools N`` serves the first N.

    python bench/home_mcp_server.py --tools 25      # stdio; the mcp SDK must be installed
"""

from __future__ import annotations

import argparse
import inspect
from typing import Annotated, Any, Literal

from pydantic import Field

# (name, description, [(argument, type, description, required)]); types: str, int, float, bool or
# a tuple of allowed strings (an enum).
Arg = tuple[str, Any, str, bool]
ROOMS = ("living_room", "kitchen", "bedroom", "bathroom", "office", "hallway", "garage", "garden")
ENTITY: Arg = ("entity_id", str, "The entity, e.g. light.kitchen_ceiling or switch.garage_door", True)
AREA: Arg = ("area", ROOMS, "The area of the house", False)

CATALOG: list[tuple[str, str, list[Arg]]] = [
    (
        "turn_on_light",
        "Turn on a light, optionally with a brightness and color.",
        [
            ENTITY,
            ("brightness_pct", int, "Brightness in percent, 1-100", False),
            ("color_name", str, "A color name such as warm white or blue", False),
        ],
    ),
    (
        "turn_off_light",
        "Turn off a light or all lights of an area.",
        [("entity_id", str, "The light entity", False), AREA],
    ),
    (
        "set_light_brightness",
        "Set the brightness of a light in percent.",
        [ENTITY, ("brightness_pct", int, "Brightness in percent, 1-100", True)],
    ),
    (
        "set_light_color_temperature",
        "Set a light's color temperature in kelvin (2000 warm to 6500 cold).",
        [ENTITY, ("kelvin", int, "Color temperature in kelvin", True)],
    ),
    ("toggle_switch", "Toggle a switch or smart plug on or off.", [ENTITY]),
    ("get_entity_state", "Get the current state and attributes of any entity.", [ENTITY]),
    (
        "list_entities",
        "List the entities of the house, optionally of one domain or area.",
        [
            (
                "domain",
                ("light", "switch", "sensor", "climate", "cover", "lock", "media_player", "camera"),
                "Entity domain",
                False,
            ),
            AREA,
        ],
    ),
    ("list_areas", "List the areas (rooms) of the house and their devices.", []),
    (
        "set_thermostat_temperature",
        "Set the target temperature of a thermostat in degrees.",
        [
            ("entity_id", str, "The climate entity, e.g. climate.living_room", True),
            ("temperature", float, "Target temperature", True),
        ],
    ),
    (
        "set_hvac_mode",
        "Set a thermostat's HVAC mode.",
        [
            ("entity_id", str, "The climate entity", True),
            ("hvac_mode", ("heat", "cool", "auto", "dry", "fan_only", "off"), "The mode", True),
        ],
    ),
    (
        "set_fan_speed",
        "Set the speed of a fan in percent.",
        [ENTITY, ("percentage", int, "Fan speed in percent", True)],
    ),
    ("get_indoor_climate", "Get the indoor temperature and humidity of an area from its sensors.", [AREA]),
    ("open_cover", "Open a cover: blinds, shutters, a garage door or a gate.", [ENTITY]),
    ("close_cover", "Close a cover: blinds, shutters, a garage door or a gate.", [ENTITY]),
    (
        "set_cover_position",
        "Set the position of blinds or shutters in percent open.",
        [ENTITY, ("position", int, "Percent open, 0-100", True)],
    ),
    ("lock_door", "Lock a smart lock.", [("entity_id", str, "The lock entity, e.g. lock.front_door", True)]),
    (
        "unlock_door",
        "Unlock a smart lock with an optional code.",
        [("entity_id", str, "The lock entity", True), ("code", str, "The lock's PIN code", False)],
    ),
    (
        "arm_alarm",
        "Arm the alarm system.",
        [
            ("mode", ("away", "home", "night", "vacation"), "Arming mode", True),
            ("code", str, "The alarm code", False),
        ],
    ),
    ("disarm_alarm", "Disarm the alarm system.", [("code", str, "The alarm code", True)]),
    ("get_alarm_status", "Get the state of the alarm system and which sensors are open.", []),
    (
        "media_play",
        "Start or resume playback on a media player.",
        [("entity_id", str, "The media player, e.g. media_player.living_room_tv", True)],
    ),
    ("media_pause", "Pause playback on a media player.", [("entity_id", str, "The media player", True)]),
    (
        "media_next_track",
        "Skip to the next track on a media player.",
        [("entity_id", str, "The media player", True)],
    ),
    (
        "set_volume",
        "Set the volume of a media player in percent.",
        [("entity_id", str, "The media player", True), ("volume_pct", int, "Volume in percent", True)],
    ),
    (
        "play_media",
        "Play a song, album, playlist, radio station or podcast on a speaker.",
        [
            ("entity_id", str, "The media player", True),
            ("query", str, "What to play, e.g. jazz radio", True),
            ("media_type", ("music", "playlist", "radio", "podcast"), "Kind of media", False),
        ],
    ),
    (
        "select_tv_source",
        "Switch a TV to another input source or app.",
        [("entity_id", str, "The TV", True), ("source", str, "Input or app, e.g. HDMI 1 or Netflix", True)],
    ),
    (
        "start_vacuum",
        "Start the robot vacuum, optionally in some rooms only.",
        [("rooms", str, "Comma-separated rooms to clean", False)],
    ),
    ("return_vacuum_to_dock", "Send the robot vacuum back to its dock.", []),
    (
        "activate_scene",
        "Activate a scene such as movie night or good morning.",
        [("scene", str, "The scene name or scene entity", True)],
    ),
    (
        "run_script",
        "Run a Home Assistant script by name, with variables.",
        [
            ("script", str, "The script, e.g. script.bedtime", True),
            ("variables", str, "Variables as key=value pairs", False),
        ],
    ),
    (
        "trigger_automation",
        "Trigger an automation now, skipping its conditions.",
        [("automation", str, "The automation entity", True)],
    ),
    (
        "enable_automation",
        "Enable or disable an automation.",
        [("automation", str, "The automation entity", True), ("enabled", bool, "True to enable", True)],
    ),
    ("list_automations", "List the automations and when each last ran.", []),
    (
        "get_sensor_history",
        "Get the history of a sensor's values over the last hours.",
        [ENTITY, ("hours", int, "How many hours back", False)],
    ),
    (
        "get_energy_usage",
        "Get the house's electricity use for a period in kWh, and its cost.",
        [("period", ("today", "yesterday", "this_week", "this_month"), "The period", True)],
    ),
    (
        "get_solar_production",
        "Get the solar panels' production for a period in kWh.",
        [("period", ("today", "yesterday", "this_week", "this_month"), "The period", True)],
    ),
    ("get_battery_levels", "Get the battery levels of the house's wireless devices.", []),
    (
        "get_water_usage",
        "Get the water consumption in liters for a period.",
        [("period", ("today", "this_week", "this_month"), "The period", True)],
    ),
    (
        "get_camera_snapshot",
        "Take a snapshot from a camera and describe who or what is seen.",
        [("entity_id", str, "The camera, e.g. camera.front_door", True)],
    ),
    (
        "get_doorbell_events",
        "List the doorbell rings and motion events of the last hours.",
        [("hours", int, "How many hours back", False)],
    ),
    (
        "send_notification",
        "Send a push notification to the household's phones.",
        [("message", str, "The text", True), ("target", str, "A person or device; all when omitted", False)],
    ),
    (
        "announce",
        "Speak an announcement on the house's speakers.",
        [("message", str, "What to say", True), AREA],
    ),
    ("add_to_shopping_list", "Add an item to the shopping list.", [("item", str, "The item", True)]),
    ("get_shopping_list", "Read the shopping list.", []),
    (
        "add_todo_item",
        "Add a task to a to-do list.",
        [
            ("list_name", str, "The list, e.g. chores", True),
            ("item", str, "The task", True),
            ("due_date", str, "Due date as YYYY-MM-DD", False),
        ],
    ),
    ("get_todo_items", "Read the open tasks of a to-do list.", [("list_name", str, "The list", True)]),
    (
        "get_calendar_events",
        "List the household calendar's events for a number of days.",
        [("days", int, "How many days ahead", False)],
    ),
    (
        "create_calendar_event",
        "Create an event in the household calendar.",
        [
            ("summary", str, "The title", True),
            ("start", str, "Start as ISO date-time", True),
            ("end", str, "End as ISO date-time", False),
        ],
    ),
    (
        "get_weather_forecast",
        "Get the weather forecast at home from the weather integration.",
        [("type", ("hourly", "daily"), "Forecast kind", False)],
    ),
    (
        "set_input_number",
        "Set a number helper (input_number) to a value.",
        [ENTITY, ("value", float, "The value", True)],
    ),
    (
        "set_input_boolean",
        "Turn a toggle helper (input_boolean) on or off.",
        [ENTITY, ("state", bool, "On or off", True)],
    ),
    (
        "set_input_select",
        "Choose an option of a dropdown helper (input_select).",
        [ENTITY, ("option", str, "The option", True)],
    ),
    (
        "start_timer_helper",
        "Start a timer helper entity for a duration.",
        [ENTITY, ("duration", str, "Duration as HH:MM:SS", True)],
    ),
    ("get_presence", "Tell who is home and where the household's phones are.", []),
    (
        "set_irrigation_zone",
        "Water a garden irrigation zone for some minutes.",
        [("zone", int, "Zone number", True), ("minutes", int, "Watering time in minutes", True)],
    ),
    ("get_air_quality", "Get indoor air quality: CO2 ppm, VOC and PM2.5 of an area.", [AREA]),
    (
        "set_water_heater_temperature",
        "Set the water heater's target temperature.",
        [("temperature", float, "Target temperature in degrees", True)],
    ),
    (
        "control_garage_door",
        "Open or close the garage door.",
        [("action", ("open", "close", "stop"), "What to do", True)],
    ),
    (
        "reload_integrations",
        "Reload the configuration of Home Assistant integrations.",
        [("integration", str, "An integration name; all when omitted", False)],
    ),
    ("get_system_health", "Get Home Assistant's system health: version, uptime, database size.", []),
    (
        "set_humidifier",
        "Turn a humidifier on or off and set its target humidity.",
        [ENTITY, ("humidity", int, "Target relative humidity in percent", False)],
    ),
    ("get_ev_charger_status", "Get the car charger's state, power and the energy charged this session.", []),
    (
        "set_ev_charging_current",
        "Set the car charger's maximum current in amperes.",
        [("amps", int, "Current in amperes, 6-32", True)],
    ),
    ("get_printer_status", "Get the network printer's state and ink or toner levels.", []),
    (
        "restart_device",
        "Restart a network device such as the router, a hub or a smart speaker.",
        [("device", str, "The device name", True)],
    ),
]


def _annotation(kind: Any, description: str, required: bool) -> Any:
    base = Literal[kind] if isinstance(kind, tuple) else kind  # type: ignore[valid-type]
    base = base if required else base | None
    return Annotated[base, Field(description=description)]


def make_tool(name: str, description: str, args: list[Arg]) -> Any:
    """A function whose signature is the tool's schema (what the SDK reads), answering a fixed result."""

    def tool(**arguments: Any) -> dict[str, Any]:
        given = {k: v for k, v in arguments.items() if v is not None}
        return {"ok": True, "tool": name, "arguments": given, "state": "done"}

    params = []
    for arg, kind, text, required in args:
        default = inspect.Parameter.empty if required else None
        params.append(
            inspect.Parameter(
                arg,
                inspect.Parameter.KEYWORD_ONLY,
                default=default,
                annotation=_annotation(kind, text, required),
            )
        )
    tool.__signature__ = inspect.Signature(params, return_annotation=dict[str, Any])  # type: ignore[attr-defined]
    tool.__annotations__ = {p.name: p.annotation for p in params} | {"return": dict[str, Any]}
    tool.__name__ = name
    tool.__doc__ = description
    return tool


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--tools", type=int, default=len(CATALOG), help=f"tools to serve (at most {len(CATALOG)})"
    )
    count = parser.parse_args().tools
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("home-assistant")
    for name, description, args in CATALOG[:count]:
        server.add_tool(make_tool(name, description, args), name=name, description=description)
    server.run("stdio")


if __name__ == "__main__":
    main()
