"""Text in and out of the model: the text tool protocol and its markup, the stream gate, sentences,
the answer's language, the plain values of a result and the numbers written in prose."""
