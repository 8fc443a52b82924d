"""The rules of the seeds as plain functions over store and model."""
