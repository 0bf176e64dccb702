"""`magboard sim`: a simulated board in the browser. One page draws the board, its pieces and
the colours its LEDs show; a person plays with the mouse, and the whole real stack (drivers,
sensing, referee, lights) answers."""
