"""ovos-agentic-loop: a ReAct / native tool-calling agent loop for OpenVoiceOS personas."""
