"""What happens to an exception nothing else caught: what the coder is told and where it is
logged (failures, no Qt), and the hook that shows it in a dialog (errorhook)."""
