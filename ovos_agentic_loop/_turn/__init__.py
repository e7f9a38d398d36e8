"""One turn, by job: its state (``state``) and dispatcher (``turn.Turn``); a reply read into a
decision (``reading``, the closed set in ``decisions``); THE model call (``model_call`` over
``brain_call``); the tool steps (``tool_steps``); asking before acting (``confirming``); the forced
answer and its grounding (``forced``); how it ends (``closing``, the sentences in ``endings``);
the transcript (``transcript``); the limits (``limits``, ``repeats``) and the timings (``timings``)."""
