"""The ``ovos-web-search-tools`` section, parsed once into a strict, frozen model.

Strict on purpose: a persona file is JSON, so a value of the wrong type is a typo, and a
typo in a security switch must not be guessed at ("false" as a string for ``allow_private``
would be truthy in Python). A wrong type, a value out of range or an unknown key is a
``ValueError`` that names the key and says what fits.
"""

from __future__ import annotations

from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

__all__ = ["DEFAULT_USER_AGENT", "TOOLBOX_ID", "WebSearchSettings", "parse_settings"]

TOOLBOX_ID = "ovos-web-search-tools"
DEFAULT_USER_AGENT = "Mozilla/5.0 (compatible; ovos-agentic-loop web tools)"

# Keys the ecosystem may put into any plugin section; they mean nothing to this toolbox.
_ECOSYSTEM_KEYS = ("enabled", "lang")


class WebSearchSettings(BaseModel):
    """Every key of the toolbox section, with its default."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    backend: Literal["ddgs", "searxng"] | None = Field(
        default=None,
        description="'ddgs' (metasearch through the ddgs library) or 'searxng' (a SearXNG instance's JSON "
        "API). Default: None, which means 'searxng' when searxng_url is set and 'ddgs' otherwise.",
    )
    searxng_url: str | None = Field(
        default=None,
        description="Base URL of a SearXNG instance whose settings.yml enables the 'json' format, e.g. "
        "'http://127.0.0.1:8888'. Trusted configuration: it may be a private address. Default: None.",
    )
    max_results: int = Field(
        default=5, ge=1, le=50, description="Cap on the results of one web_search call. Default: 5."
    )
    region: str = Field(
        default="us-en", min_length=2, description="ddgs region, e.g. 'pt-pt'. Default: us-en."
    )
    safesearch: Literal["on", "moderate", "off"] = Field(default="moderate", description="Default: moderate.")
    search_timeout: float = Field(
        default=10.0, gt=0, le=120, description="Seconds one search may take. Default: 10."
    )
    allow_fetch: bool = Field(default=True, description="Offer the fetch_page tool. Default: true.")
    fetch_timeout: float = Field(
        default=15.0,
        gt=0,
        le=300,
        description="Seconds one fetch_page may take, redirects included. Default: 15.",
    )
    max_page_bytes: int = Field(
        default=2_000_000,
        ge=1024,
        le=50_000_000,
        description="Bytes of a page read (after decompression); the rest is not downloaded. Default: 2 MB.",
    )
    max_page_chars: int = Field(
        default=3000,
        ge=200,
        le=200_000,
        description="Characters of page text returned per fetch_page call; the model reads on with "
        "'offset'. Default 3000, so one page fits the loop's default observation size (4000).",
    )
    max_redirects: int = Field(default=5, ge=0, le=20, description="Redirects followed. Default: 5.")
    allowed_domains: list[str] = Field(
        default_factory=list,
        description="When not empty, fetch_page reads only these domains and their subdomains. Default: [].",
    )
    blocked_domains: list[str] = Field(
        default_factory=list,
        description="Domains (and subdomains) fetch_page refuses and web_search leaves out. Default: [].",
    )
    allow_private: bool = Field(
        default=False,
        description="Let fetch_page read loopback, private, link-local and CGNAT addresses (home servers, "
        "tests). Cloud metadata addresses stay refused. Default: false.",
    )
    user_agent: str = Field(default=DEFAULT_USER_AGENT, min_length=1, description="User-Agent header.")

    @field_validator("searxng_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("must be an http(s) URL such as 'http://127.0.0.1:8888'")
        return value.rstrip("/")

    @field_validator("allowed_domains", "blocked_domains")
    @classmethod
    def _domains(cls, values: list[str]) -> list[str]:
        cleaned = []
        for value in values:
            domain = normalise_domain(value.removeprefix("*."))
            if not domain or "/" in domain or ":" in domain:
                raise ValueError(f"{value!r} is not a domain name; write e.g. 'wikipedia.org'")
            cleaned.append(domain)
        return cleaned

    @property
    def effective_backend(self) -> Literal["ddgs", "searxng"]:
        if self.backend is not None:
            return self.backend
        return "searxng" if self.searxng_url else "ddgs"


def normalise_domain(name: str) -> str:
    """Lower case, no trailing dot, IDNA (punycode) form, so 'Bücher.DE.' matches 'xn--bcher-kva.de'."""
    name = name.strip().rstrip(".").lower()
    try:
        return name.encode("idna").decode("ascii")
    except UnicodeError:
        return name


def parse_settings(raw: dict[str, Any] | None) -> WebSearchSettings:
    """Validate the section; raise ``ValueError`` naming every bad key and what fits."""
    section = {k: v for k, v in (raw or {}).items() if k not in _ECOSYSTEM_KEYS}
    try:
        settings = WebSearchSettings.model_validate(section)
    except ValidationError as exc:
        problems = "; ".join(_describe(err) for err in exc.errors())
        raise ValueError(f"{TOOLBOX_ID}: invalid configuration: {problems}") from None
    if settings.effective_backend == "searxng" and not settings.searxng_url:
        raise ValueError(f"{TOOLBOX_ID}: invalid configuration: backend 'searxng' needs 'searxng_url'")
    return settings


def _describe(err: Any) -> str:
    key = ".".join(str(p) for p in err["loc"]) or "(section)"
    if err["type"] == "extra_forbidden":
        known = ", ".join(WebSearchSettings.model_fields)
        return f"{key}: unknown key (known keys: {known})"
    return f"{key}: {err['msg']} (got {err.get('input')!r})"
