"""Every catalogue rule, triggered once and narrowly missed once, through the real engine."""
