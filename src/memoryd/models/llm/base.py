"""The one small interface every LLM provider implements.

Extraction asks for structured output (a JSON schema); the proxy asks for plain chat,
streamed or not. Providers raise ``LLMError`` for anything that went wrong on the way
(HTTP errors, timeouts, refusals), so callers handle one exception type.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from memoryd.domain.errors import MemorydError

Message = Mapping[str, str]


class LLMError(MemorydError):
    """A provider call failed; ``status`` is the upstream HTTP status when there was one."""

    def __init__(self, message: str, *, status: int | None = None, retryable: bool = True) -> None:
        super().__init__(message)
        self.status = status
        self.retryable = retryable


class LLMUnavailable(LLMError):
    """Every call fails the same way whatever it asks: the fault is the server's or its
    settings', not the batch's. Extraction stops its run at the first one instead of
    blaming each pair in turn (no attempt is counted, nothing is parked), and the next
    run tries again."""

    reason = "LLM unavailable"


class LLMConfigError(LLMUnavailable):
    """The provider refused how memoryd is set up (API key, model, base URL), not the
    request: every call fails the same way until an operator changes a setting, so the
    message names the setting."""

    reason = "LLM settings refused"

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message, status=status, retryable=False)


class LLMUnreachable(LLMUnavailable):
    """No connection to the LLM server at all (refused, unknown host, reset before an
    answer): it is down or the base URL is wrong. A timeout is not this: a slow answer
    can be the batch's own doing."""

    reason = "LLM server unreachable"


def error_detail(body: object, fallback: str) -> str:
    """The server's own words from an error body (``{"error": {"message": ...}}``, as
    OpenAI and Anthropic send it), else ``fallback``; at most 300 characters."""
    inner = body.get("error", body) if isinstance(body, dict) else None
    if isinstance(inner, dict) and isinstance(inner.get("message"), str):
        return str(inner["message"])[:300]
    return fallback[:300]


def status_error(status: int, detail: str, *, model: str, endpoint_hint: str) -> LLMError:
    """The error for an HTTP ``status`` answer; 401 and 404 say which setting to change.

    A 404 that speaks of a model means the server lacks ``model``; any other 404 means the
    base URL points at no chat endpoint (``endpoint_hint`` says what it should look like).
    """
    said = f"HTTP {status}: {detail}"
    fix = None
    if status == 401:
        fix = f"refused the API key ({said}); set MEMORYD_LLM_API_KEY to a key it accepts"
    elif status == 404 and "model" in detail.lower():
        fix = (
            f"has no model {model!r} ({said}); set MEMORYD_LLM_MODEL (or the "
            "extraction_model setting) to a model it serves"
        )
    elif status == 404:
        fix = f"has no chat endpoint there ({said}); check MEMORYD_LLM_BASE_URL: {endpoint_hint}"
    if fix is not None:
        return LLMConfigError(f"the LLM server {fix}", status=status)
    retryable = status in (408, 429) or status >= 500
    return LLMError(f"LLM server answered {said}", status=status, retryable=retryable)


class SdkErrors(Protocol):
    """The error classes the ``openai`` and ``anthropic`` SDKs both define (the module)."""

    @property
    def APITimeoutError(self) -> type[Exception]: ...
    @property
    def APIConnectionError(self) -> type[Exception]: ...
    @property
    def APIStatusError(self) -> type[Exception]: ...


def sdk_error(
    exc: Exception, sdk: SdkErrors, *, base_url: object, model: str, hint: str
) -> LLMError:
    """The LLMError for an exception of the ``openai`` or ``anthropic`` SDK (both name
    their errors alike; a timeout is checked first, as it is a kind of connection error)."""
    if isinstance(exc, sdk.APITimeoutError):
        return LLMError("the LLM request timed out")
    if isinstance(exc, sdk.APIConnectionError):
        return LLMUnreachable(
            f"cannot reach the LLM server at {base_url}: {exc}; check that it runs and "
            "MEMORYD_LLM_BASE_URL"
        )
    if isinstance(exc, sdk.APIStatusError):
        detail = error_detail(getattr(exc, "body", None), str(exc))
        return status_error(
            int(getattr(exc, "status_code", 0)), detail, model=model, endpoint_hint=hint
        )
    return LLMError(f"LLM call failed: {exc}")


class SdkProvider:
    """What the OpenAI and Anthropic providers share: the SDK's client, with its own
    retries off (retrying with backoff is the extraction scheduler's job), a repr that
    never shows the key, and the SDK's errors as LLMError (``sdk_error``)."""

    name: str
    sdk: Any  # the SDK module, whose error classes ``sdk_error`` reads
    client: Callable[..., Any]  # its client class
    default_model: str
    no_key: str  # given to the SDK without a key: local servers need none, the SDK insists
    hint: str  # what a base URL should look like, for a 404

    def __init__(
        self,
        *,
        model: str | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = 120.0,
    ) -> None:
        self.model = model or self.default_model
        self.base_url = base_url
        self._client = self.client(
            base_url=base_url, api_key=api_key or self.no_key, timeout=timeout, max_retries=0
        )

    def __repr__(self) -> str:  # never shows the key
        return f"{type(self).__name__}(model={self.model!r}, base_url={self.base_url!r})"

    def _error(self, exc: Exception) -> LLMError:
        return sdk_error(
            exc, self.sdk, base_url=self._client.base_url, model=self.model, hint=self.hint
        )


@dataclass(frozen=True)
class Completion:
    text: str
    model: str
    prompt_tokens: int = 0
    completion_tokens: int = 0


@runtime_checkable
class LLMProvider(Protocol):
    name: str
    model: str

    def complete(
        self,
        messages: Sequence[Message],
        *,
        schema: Mapping[str, Any] | None = None,
        schema_name: str = "output",
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> Completion:
        """One answer; with ``schema`` the answer text is meant to be JSON of that schema."""
        ...

    def stream(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> Iterator[str]:
        """The answer as text pieces, in order."""
        ...
