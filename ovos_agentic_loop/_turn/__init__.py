"""One turn: its state and dispatch (``turn``), the model call (``brain_call``), the decisions a reply
becomes, the transcript, the endings, the repeated-call limit and the turn's timings."""
