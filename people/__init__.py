"""People at the board: a signed-in person plays an engine in the browser (docs/play.md)."""
